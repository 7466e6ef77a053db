// Helpers of the DeepSeek Harness plugin (index.js): the child call, reading the surface,
// the replace op, the panel proxy. Kept apart so they can be tested without a harness.

import { spawn } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { appendFileSync, mkdirSync, existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import http from 'node:http'


const SOURCE_KIND = 'plugin:trilogy'
// environment variables never handed to the child: provider keys and the like
const SECRET_ENV = /(API_?KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE)/i

export const dshHome = () => process.env.DSH_HOME || join(homedir(), '.dsh')

export function logLine(line) {
  try {
    const dir = join(dshHome(), 'trilogy')
    mkdirSync(dir, { recursive: true })
    appendFileSync(join(dir, 'plugin.log'), `${new Date().toISOString()} ${line}\n`)
  } catch {
    // logging must never be the thing that fails a step
  }
}

export function childEnv(env = process.env) {
  const out = {}
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue
    if (SECRET_ENV.test(k) && !k.startsWith('TRILOGY_')) continue
    out[k] = v
  }
  return out
}

// Run `trilogy hook dsh <event>` with `payload`; resolves to the parsed answer, or undefined
// on any failure (missing binary, timeout, abort, non-zero exit, bad JSON).
export function callTrilogy(cfg, event, payload, { signal, cwd } = {}) {
  return new Promise((resolve) => {
    let settled = false
    const done = (value, why) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal?.removeEventListener?.('abort', onAbort)
      if (why) logLine(`${event}: ${why}`)
      resolve(value)
    }
    let child
    try {
      child = spawn(cfg.command, ['hook', 'dsh', event], {
        cwd: cwd && existsSync(cwd) ? cwd : undefined,
        env: childEnv(),
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    } catch (e) {
      done(undefined, `cannot run ${cfg.command}: ${e?.message ?? e}`)
      return
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      done(undefined, `no answer within ${cfg.timeoutMs} ms; the step goes on without memory`)
    }, cfg.timeoutMs)
    const onAbort = () => {
      child.kill('SIGKILL')
      done(undefined, 'the step was aborted')
    }
    if (signal?.aborted) return onAbort()
    signal?.addEventListener?.('abort', onAbort, { once: true })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => { out += d })
    child.stderr.on('data', (d) => { err += d })
    child.on('error', (e) => done(undefined, `cannot run ${cfg.command}: ${e?.message ?? e}`))
    child.on('close', (code) => {
      if (code !== 0) return done(undefined, `exit ${code}: ${err.trim().slice(0, 300)}`)
      try {
        done(JSON.parse(out || '{}'))
      } catch {
        done(undefined, `answer is not JSON: ${out.trim().slice(0, 200)}`)
      }
    })
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

const textOf = (message) =>
  (Array.isArray(message?.content) ? message.content : [])
    .filter((p) => p?.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('')

// A live block of ours: kind `plugin:trilogy` (or the pre-v4 `{kind:'plugin', plugin:'trilogy'}`),
// form exactly `trilogy`; notices and stand-ins never count.
export const isBlock = (src) =>
  (src?.kind === SOURCE_KIND || (src?.kind === 'plugin' && src?.plugin === 'trilogy')) &&
  src?.form === 'trilogy'

const eventAt = (session, seq) => {
  if (typeof session.eventAt === 'function') return session.eventAt(seq)
  if (Array.isArray(session.events)) return session.events[seq]
  return undefined
}

// What the model sees of our blocks: `{known, blocks: [{seq, digest}]}`, oldest first.
export function readSurface(session) {
  try {
    const nodes = session?.surface?.nodes
    if (!Array.isArray(nodes) && !(nodes && typeof nodes[Symbol.iterator] === 'function')) {
      return { known: false, blocks: [] }
    }
    const blocks = []
    for (const seq of nodes) {
      const ev = eventAt(session, seq)
      if (ev === undefined) return { known: false, blocks: [] }
      if (ev?.type !== 'user/message' || !isBlock(ev.data?.source)) continue
      const digest = createHash('sha1').update(textOf(ev.data), 'utf8').digest('hex')
      blocks.push({ seq, digest })
    }
    return { known: true, blocks }
  } catch {
    return { known: false, blocks: [] }
  }
}

export const userMessage = (text, form, baseline) => ({
  id: randomUUID(),
  role: 'user',
  content: [{ type: 'text', text }],
  source: { kind: SOURCE_KIND, form, ...(baseline ? { baseline: true } : {}) },
})

// Replace the node at `seq` in place; the op's keys differ between harness versions
// (`startSeq`/`endSeq` from 0.1.5, `start`/`end` before). A refused shape throws before any
// seq is used, so trying the other is safe. False when neither is taken.
export function replaceNode(session, seq, message) {
  for (const surfaceOp of [
    { op: 'replace', startSeq: seq, endSeq: seq },
    { op: 'replace', start: seq, end: seq },
  ]) {
    try {
      session.append('user/message', message, { surfaceOp, sourceEventSeqs: [seq] })
      return true
    } catch {
      // try the other shape
    }
  }
  return false
}

export const withTimeout = (promise, ms) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(undefined), ms))])

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])

const sendJson = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(JSON.stringify(body))
}

// Forward /trilogy/* to a `trilogy serve` child. The fence is the harness server's own
// origin: a loopback peer, a Host naming this server, and for a state-changing request an
// Origin of this server (or none, from a non-browser client). The child's token is added
// here, so the browser never needs it.
export function panelProxy(cfg) {
  let child
  let target
  const start = () =>
    (target ??= new Promise((resolve, reject) => {
      child = spawn(cfg.command, ['serve', '--port', '0', '--json'], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      child.on('error', (e) => {
        target = undefined
        reject(e)
      })
      child.on('exit', () => {
        target = undefined
      })
      child.stdout.on('data', (d) => {
        out += d
        const nl = out.indexOf('\n')
        if (nl < 0) return
        try {
          resolve(JSON.parse(out.slice(0, nl)))
        } catch (e) {
          reject(e)
        }
      })
    }))
  const handle = async (req, res) => {
    try {
      const peer = req.socket?.remoteAddress ?? ''
      if (!LOOPBACK.has(peer)) return sendJson(res, 403, { error: '仅允许本机访问' })
      const host = req.headers.host ?? ''
      const [hostName] = host.split(':')
      if (!['127.0.0.1', 'localhost', '[::1]'].includes(hostName)) {
        return sendJson(res, 403, { error: `host ${host} is not this machine` })
      }
      const origin = req.headers.origin
      if (req.method !== 'GET' && req.method !== 'HEAD' && origin !== undefined && origin !== `http://${host}`) {
        return sendJson(res, 403, { error: `origin ${origin} may not change memory` })
      }
      const t = await start()
      const url = new URL(t.url)
      const headers = { ...req.headers, host: url.host, 'x-trilogy-token': t.token }
      delete headers.origin
      delete headers.cookie
      const upstream = http.request(
        { host: url.hostname, port: url.port, method: req.method, path: req.url, headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers)
          up.pipe(res)
        },
      )
      upstream.on('error', (e) => sendJson(res, 502, { error: `trilogy serve: ${e.message}` }))
      req.pipe(upstream)
    } catch (e) {
      logLine(`web: ${e?.stack ?? e}`)
      sendJson(res, 502, { error: `trilogy serve did not start: ${e?.message ?? e}` })
    }
  }
  return { handle, stop: () => child?.kill() }
}
