// Unit tests of the plugin's helpers against the shapes of the harness versions the plugin
// must run on (recorded from 0.1.0-rc.8; the 0.1.5 and 0.2 shapes as their releases document
// them): reading an event by seq, the replace op's keys, the legacy source, and the child
// call's failure modes. Run: node --test templates/dsh/lib.test.mjs
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { callTrilogy, childEnv, isBlock, readSurface, replaceNode } from './lib.js'

const sha1 = (t) => createHash('sha1').update(t, 'utf8').digest('hex')
const msg = (text, source) => ({ type: 'user/message', data: { id: 'x', role: 'user', content: [{ type: 'text', text }], source } })

// events as rc.8 logged them: the block at seq 9 behind the user's prompt and the snapshot
const rc8Events = () => {
  const events = []
  events[7] = msg('Read README.md and summarise it.', { kind: 'user' })
  events[8] = msg('runtime', { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt', form: 'snapshot' })
  events[9] = msg('BLOCK v1', { kind: 'plugin:trilogy', form: 'trilogy', baseline: true })
  events[10] = msg('notice', { kind: 'plugin:trilogy', form: 'trilogy-update' })
  events[11] = msg('BLOCK v2', { kind: 'plugin', plugin: 'trilogy', form: 'trilogy' })
  return events
}

test('rc.8 surface: events read from the frozen array', () => {
  const session = { surface: { nodes: [7, 8, 9, 10, 11] }, events: rc8Events() }
  assert.deepEqual(readSurface(session), {
    known: true,
    blocks: [{ seq: 9, digest: sha1('BLOCK v1') }, { seq: 11, digest: sha1('BLOCK v2') }],
  })
})

test('0.1.5 surface: events read with eventAt', () => {
  const events = rc8Events()
  const session = { surface: { nodes: [7, 9] }, eventAt: (seq) => events[seq] }
  assert.deepEqual(readSurface(session).blocks, [{ seq: 9, digest: sha1('BLOCK v1') }])
})

test('a surface that cannot be read is unknown, never empty', () => {
  assert.equal(readSurface({}).known, false)
  assert.equal(readSurface({ surface: { nodes: [1] } }).known, false)
  assert.equal(readSurface({ surface: { nodes: [1] }, eventAt: () => { throw new Error('gone') } }).known, false)
})

test('only form trilogy counts as the block, in both source shapes', () => {
  assert.ok(isBlock({ kind: 'plugin:trilogy', form: 'trilogy' }))
  assert.ok(isBlock({ kind: 'plugin', plugin: 'trilogy', form: 'trilogy' }))
  assert.ok(!isBlock({ kind: 'plugin:trilogy', form: 'trilogy-update' }))
  assert.ok(!isBlock({ kind: 'plugin:trilogy', form: 'trilogy-superseded' }))
  assert.ok(!isBlock({ kind: 'plugin', plugin: 'other', form: 'trilogy' }))
  assert.ok(!isBlock({ kind: 'plugin:trilogy', form: 'project-memory' }))
})

// a session that takes exactly one replace shape, as the harness validates it
const replacing = (keys) => {
  const calls = []
  return {
    calls,
    append(type, message, { surfaceOp, sourceEventSeqs }) {
      const got = Object.keys(surfaceOp).sort().join(',')
      if (got !== keys) throw new Error('session event "user/message" carries an invalid replace surfaceOp')
      calls.push({ type, surfaceOp, sourceEventSeqs, text: message.content[0].text })
      return { seq: 99 }
    },
  }
}

test('replace: the 0.1.5 shape (startSeq/endSeq) when it is taken', () => {
  const s = replacing('endSeq,op,startSeq')
  assert.ok(replaceNode(s, 9, msg('stand-in').data))
  assert.deepEqual(s.calls[0].surfaceOp, { op: 'replace', startSeq: 9, endSeq: 9 })
  assert.deepEqual(s.calls[0].sourceEventSeqs, [9])
})

test('replace: the rc.8 shape (start/end) after the other is refused', () => {
  const s = replacing('end,op,start')
  assert.ok(replaceNode(s, 9, msg('stand-in').data))
  assert.deepEqual(s.calls, [{ type: 'user/message', surfaceOp: { op: 'replace', start: 9, end: 9 }, sourceEventSeqs: [9], text: 'stand-in' }])
})

test('replace: append-only harnesses leave the node and say so', () => {
  assert.equal(replaceNode(replacing('none'), 9, msg('stand-in').data), false)
  assert.equal(replaceNode({}, 9, msg('stand-in').data), false)
})

test('the child never sees provider credentials', () => {
  const env = childEnv({ PATH: '/bin', HOME: '/h', DEEPSEEK_API_KEY: 'k', OPENAI_API_KEY: 'k', GITHUB_TOKEN: 't', AWS_SECRET_ACCESS_KEY: 's', TRILOGY_LANG: 'en', DSH_HOME: '/d' })
  assert.deepEqual(Object.keys(env).sort(), ['DSH_HOME', 'HOME', 'PATH', 'TRILOGY_LANG'])
})

const script = (body) => {
  const dir = mkdtempSync(join(tmpdir(), 'trilogy-dsh-'))
  const path = join(dir, 'fake')
  writeFileSync(path, `#!/bin/sh\n${body}\n`)
  chmodSync(path, 0o755)
  process.env.DSH_HOME = dir
  return path
}

test('the child call answers parsed JSON, and nothing on any failure', async () => {
  const ok = script('cat >/dev/null; echo \'{"append":[{"form":"trilogy","text":"hi"}]}\'')
  assert.deepEqual(await callTrilogy({ command: ok, timeoutMs: 5000 }, 'pre-step', {}), { append: [{ form: 'trilogy', text: 'hi' }] })
  const bad = script('cat >/dev/null; echo not json')
  assert.equal(await callTrilogy({ command: bad, timeoutMs: 5000 }, 'pre-step', {}), undefined)
  const failing = script('cat >/dev/null; exit 3')
  assert.equal(await callTrilogy({ command: failing, timeoutMs: 5000 }, 'pre-step', {}), undefined)
  assert.equal(await callTrilogy({ command: '/nonexistent/trilogy', timeoutMs: 5000 }, 'pre-step', {}), undefined)
  const hanging = script('exec sleep 60')
  assert.equal(await callTrilogy({ command: hanging, timeoutMs: 200 }, 'pre-step', {}), undefined)
  const aborted = new AbortController()
  const pending = callTrilogy({ command: hanging, timeoutMs: 60000 }, 'pre-step', {}, { signal: aborted.signal })
  aborted.abort()
  assert.equal(await pending, undefined)
})
