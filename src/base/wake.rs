//! Wake-ups between processes of this machine: small datagrams sent to a mailbox known by
//! name. On Linux a mailbox is an abstract Unix socket: nothing on disk, gone with the process
//! that bound it, and seen only within one network namespace.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::time::Duration;

/// A mailbox: bound to a name (to be sent to), or unbound (to send only).
pub struct Mailbox {
    sock: UnixDatagram,
}

/// Who sent a datagram, to answer.
pub struct Sender(SocketAddr);

fn addr(name: &str) -> std::io::Result<SocketAddr> {
    SocketAddr::from_abstract_name(name)
}

impl Mailbox {
    /// The mailbox called `name`; an error when another process holds it.
    pub fn bind(name: &str) -> std::io::Result<Mailbox> {
        UnixDatagram::bind_addr(&addr(name)?).map(|sock| Mailbox { sock })
    }

    /// A mailbox without a name, to send from.
    pub fn unbound() -> std::io::Result<Mailbox> {
        UnixDatagram::unbound().map(|sock| Mailbox { sock })
    }

    /// Send `bytes` to the mailbox called `name`.
    pub fn send_to(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        self.sock.send_to_addr(bytes, &addr(name)?).map(drop)
    }

    /// Answer the sender of a datagram received.
    pub fn reply(&self, to: &Sender, bytes: &[u8]) -> std::io::Result<()> {
        self.sock.send_to_addr(bytes, &to.0).map(drop)
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
    fn a_word_sent_by_name_is_received_and_answered() {
        let name = format!("trilogy-test-wake-{}", std::process::id());
        let server = Mailbox::bind(&name).unwrap();
        assert!(Mailbox::bind(&name).is_err(), "a name is held once");
        let client = Mailbox::bind(&format!("{name}-client")).unwrap();
        client.send_to(&name, b"hello").unwrap();
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
}
