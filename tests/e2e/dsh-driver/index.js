// Test driver for the DeepSeek Harness end-to-end tests (not part of trilogy): a headless run
// answers one task, so this plugin plays the user's next turns. Its config names a JSON file
// holding the turns after the first, `{prompt, run?, compact?, duplicate?}`; when turn k stops, it does
// what turn k+1 asks before it — `run` (argv of a command run to completion, e.g. a
// checkpoint from another process), `compact` (our memory blocks leave the surface, the way a
// compaction takes them: replaced in place), `duplicate` (a second copy of the block appears)
// — then queues its prompt as the next turn. Every act is logged to the file `log`.
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { appendFileSync, readFileSync } from 'node:fs'

export const name = 'e2e-driver'

const ours = (src) => src?.kind === 'plugin:trilogy' && src?.form === 'trilogy'

export function apply(ctx, config) {
  const turns = config?.script ? JSON.parse(readFileSync(config.script, 'utf8')) : []
  const log = (what) => config?.log && appendFileSync(config.log, JSON.stringify(what) + '\n')
  const message = (text, source) => ({ id: randomUUID(), role: 'user', content: [{ type: 'text', text }], source })
  const eventAt = (s, seq) => (typeof s.eventAt === 'function' ? s.eventAt(seq) : s.events?.[seq])
  const blocks = (s) => [...(s.surface?.nodes ?? [])].filter((seq) => {
    const e = eventAt(s, seq)
    return e?.type === 'user/message' && ours(e.data?.source)
  })
  ctx.on('agent/turn-stopping', ({ agent, turn }) => {
    const next = turns[turn - 1]
    const session = agent?.session
    if (!next || !session || session.header?.origin === 'subagent') return
    if (next.run) {
      const r = spawnSync(next.run[0], next.run.slice(1), { cwd: session.header.cwd, encoding: 'utf8', input: next.stdin ?? '' })
      log({ turn, run: next.run, status: r.status, stderr: r.stderr })
    }
    if (next.compact) {
      for (const seq of blocks(session)) {
        const m = message('(an earlier part of the conversation was compacted)', { kind: 'plugin:e2e-driver', form: 'compacted' })
        let done = false
        for (const surfaceOp of [{ op: 'replace', startSeq: seq, endSeq: seq }, { op: 'replace', start: seq, end: seq }]) {
          try { session.append('user/message', m, { surfaceOp, sourceEventSeqs: [seq] }); done = true; break } catch {}
        }
        log({ turn, compacted: seq, done })
      }
    }
    if (next.duplicate) {
      const seq = blocks(session).at(-1)
      const text = eventAt(session, seq)?.data?.content?.[0]?.text
      if (text) session.append('user/message', message(text, { kind: 'plugin:trilogy', form: 'trilogy', baseline: true }), { surfaceOp: 'append' })
      log({ turn, duplicated: seq })
    }
    agent.followup(message(next.prompt, { kind: 'user' }))
    log({ turn, followup: next.prompt })
  })
}
