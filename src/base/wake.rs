//! Wake-ups between processes of this machine: small datagrams between mailboxes on the
//! loopback interface. A mailbox is a UDP socket bound to `127.0.0.1` on a port the system
//! picks; whoever wants to be found writes its [`Mailbox::address`] where senders look (the
//! caller's business), and a sender answers to the address a datagram came from. The same on
//! Linux, macOS and Windows: no file for the socket itself, nothing left when a process dies,
//! and only processes that share the loopback interface (one network namespace) hear each
//! other. Nothing here trusts what a datagram says: a word only wakes.

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::time::Duration;

/// A mailbox on the loopback interface, on a port of its own.
pub struct Mailbox {
    sock: UdpSocket,
}

/// Who sent a datagram, to answer.
pub struct Sender(SocketAddr);

impl Mailbox {
    /// A new mailbox, on a free port of the loopback interface.
    pub fn open() -> std::io::Result<Mailbox> {
        UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).map(|sock| Mailbox { sock })
    }

    /// Where this mailbox is found, as text to announce: its port.
    pub fn address(&self) -> std::io::Result<String> {
        Ok(self.sock.local_addr()?.port().to_string())
    }

    /// Send `bytes` to the mailbox announced as `address` (its port, as [`Mailbox::address`]
    /// gave it). An address that is not a port is an `InvalidInput` error.
    pub fn send_to(&self, address: &str, bytes: &[u8]) -> std::io::Result<()> {
        let port = address
            .trim()
            .parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{address:?} is not a mailbox's port"),
                )
            })?;
        self.sock
            .send_to(bytes, (Ipv4Addr::LOCALHOST, port))
            .map(drop)
    }

    /// Answer the sender of a datagram received.
    pub fn reply(&self, to: &Sender, bytes: &[u8]) -> std::io::Result<()> {
        self.sock.send_to(bytes, to.0).map(drop)
    }

    /// Receive a datagram into `buf`.
    pub fn recv(&self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.sock.recv(buf)
    }

    /// Receive a datagram into `buf`, with who sent it.
    pub fn recv_from(&self, buf: &mut [u8]) -> std::io::Result<(usize, Sender)> {
        self.sock.recv_from(buf).map(|(n, a)| (n, Sender(a)))
    }

    /// How long a receive waits (`None`: for ever).
    pub fn set_read_timeout(&self, d: Option<Duration>) -> std::io::Result<()> {
        self.sock.set_read_timeout(d)
    }

    /// Whether sends and receives return at once instead of waiting.
    pub fn set_nonblocking(&self, on: bool) -> std::io::Result<()> {
        self.sock.set_nonblocking(on)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_sent_to_an_address_is_received_and_answered() {
        let server = Mailbox::open().unwrap();
        let address = server.address().unwrap();
        let client = Mailbox::open().unwrap();
        assert_ne!(
            client.address().unwrap(),
            address,
            "each has a port of its own"
        );
        client.send_to(&address, b"hello").unwrap();
        server
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut buf = [0u8; 16];
        let (n, from) = server.recv_from(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"hello");
        server.reply(&from, b"done").unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let n = client.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"done");
    }

    #[test]
    fn an_address_that_is_not_a_port_is_refused_and_nothing_waits_forever() {
        let client = Mailbox::open().unwrap();
        for bad in ["", "0", "65536", "../x", "12 34"] {
            let e = client.send_to(bad, b"x").unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{bad:?}");
        }
        client.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 4];
        assert!(client.recv(&mut buf).is_err(), "nothing was sent to it");
    }
}
