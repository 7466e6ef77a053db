// trilogy for DeepSeek Harness: a thin plugin. It reports what it sees to
// `trilogy hook dsh <event>` (JSON on stdin, JSON on stdout; schema/dsh-hook.json in the
// trilogy repository) and does what the answer says. Every decision (dedup, budget, notices,
// the reminder, stand-ins) is made by the binary, the same rules as for every other host.
//
// Rules for living inside the harness: the pre-step is awaited on every model step and a
// throw there loses the user's message, so every call is bounded by a timeout and the step's
// abort signal, everything is caught, and a failure publishes nothing (the reason goes to
// $DSH_HOME/trilogy/plugin.log). The child never sees provider credentials. Nothing is
// imported from the harness's packages: the API differences between versions are
// feature-detected (how an event is read by seq, the shape of the replace op).

import { callTrilogy, childEnv, logLine, panelProxy, readSurface, replaceNode, userMessage, withTimeout } from './lib.js'

export const name = 'trilogy'

// keys of the profile row that belong to the plugin, not to trilogy's configuration
const OWN_KEYS = new Set(['command', 'timeoutMs', 'web'])

export function apply(ctx, config) {
  const cfg = { command: 'trilogy', timeoutMs: 5000, ...(config ?? {}) }
  cfg.timeoutMs = Number(cfg.timeoutMs) > 0 ? Number(cfg.timeoutMs) : 5000
  const forwarded = Object.fromEntries(
    Object.entries(config ?? {}).filter(([k]) => !OWN_KEYS.has(k)),
  )
  const state = new WeakMap()
  const stateOf = (session) => {
    let s = state.get(session)
    if (!s) {
      s = { tools: [], window: undefined }
      state.set(session, s)
    }
    return s
  }
  const header = (session) => session?.header ?? {}
  const sessionId = (session) => header(session).id ?? session?.id
  const isSubagent = (session) =>
    header(session).origin === 'subagent' || Number(header(session).delegationDepth ?? 0) > 0

  // the routed model's window: what the session's last request said, else the model info
  async function contextWindow(agent, session, st) {
    try {
      const rc = typeof session.requestContext === 'function' ? session.requestContext() : undefined
      if (Number(rc?.contextWindow) > 0) return Number(rc.contextWindow)
      if (st.window !== undefined) return st.window
      let llm
      try {
        llm = ctx.get?.('llm')
      } catch {
        llm = undefined
      }
      const info = await withTimeout(
        Promise.resolve(llm?.resolveModelInfo?.(agent?.options?.provider, agent?.options?.model)),
        1000,
      )
      const w = Number(info?.context?.contextWindow)
      st.window = w > 0 ? w : null
      return st.window
    } catch (e) {
      logLine(`model window: ${e?.message ?? e}`)
      return null
    }
  }

  ctx.on('agent/pre-step', async (payload, next) => {
    const downstream = await next()
    try {
      const agent = payload?.agent
      const session = agent?.session
      if (downstream?.kind !== 'enter' || !session) return downstream
      const st = stateOf(session)
      const request = {
        sessionId: sessionId(session),
        cwd: header(session).cwd,
        turn: payload.turn,
        step: payload.step,
        subagent: isSubagent(session),
        contextWindow: await contextWindow(agent, session, st),
        config: forwarded,
        surface: readSurface(session),
        tools: st.tools.splice(0),
      }
      const answer = await callTrilogy(cfg, 'pre-step', request, {
        signal: payload.signal,
        cwd: request.cwd,
      })
      if (!answer || typeof answer !== 'object') return downstream
      for (const r of Array.isArray(answer.replace) ? answer.replace : []) {
        if (typeof r?.text !== 'string' || !Number.isInteger(r?.seq)) continue
        if (!replaceNode(session, r.seq, userMessage(r.text, r.form ?? 'trilogy-superseded'))) {
          logLine(`pre-step: the harness refused to replace node ${r.seq}; left as it is`)
          break
        }
      }
      const extra = (Array.isArray(answer.append) ? answer.append : [])
        .filter((a) => typeof a?.text === 'string' && typeof a?.form === 'string')
        .map((a) => userMessage(a.text, a.form, a.baseline === true))
      if (extra.length === 0) return downstream
      return { ...downstream, messages: [...(downstream.messages ?? []), ...extra] }
    } catch (e) {
      logLine(`pre-step: ${e?.stack ?? e}`)
      return downstream
    }
  })

  ctx.on('tools/result', (exec, result) => {
    try {
      const session = exec?.agent?.session
      if (!session) return
      const args = exec.arguments
      const input = typeof args?.command === 'string' ? { command: args.command.slice(0, 4000) } : {}
      stateOf(session).tools.push({ name: String(exec.name ?? ''), input, isError: result?.isError === true })
    } catch (e) {
      logLine(`tools/result: ${e?.stack ?? e}`)
    }
  })

  ctx.on('agent/turn-stopping', async ({ agent, turn, signal }) => {
    try {
      const session = agent?.session
      if (!session) return
      const st = stateOf(session)
      await callTrilogy(
        cfg,
        'turn-stopping',
        {
          sessionId: sessionId(session),
          cwd: header(session).cwd,
          turn,
          subagent: isSubagent(session),
          config: forwarded,
          tools: st.tools.splice(0),
        },
        { signal, cwd: header(session).cwd },
      )
    } catch (e) {
      logLine(`turn-stopping: ${e?.stack ?? e}`)
    }
  })

  ctx.on('agent/disposed', ({ agent }) => {
    try {
      const session = agent?.session
      if (!session) return
      const cwd = header(session).cwd
      void callTrilogy(cfg, 'session-end', { sessionId: sessionId(session), cwd, config: forwarded }, { cwd })
    } catch (e) {
      logLine(`agent/disposed: ${e?.stack ?? e}`)
    }
  })

  // the panel under /trilogy on the web profile: a `trilogy serve` child, started on the
  // first request, behind the same loopback fence
  if (typeof ctx.inject === 'function') {
    ctx.inject(['webServer'], (hostCtx) => {
      hostCtx.effect(() => {
        const panel = panelProxy(cfg)
        const dispose = hostCtx.webServer.register({ kind: 'prefix', path: '/trilogy', handler: panel.handle })
        return () => {
          dispose?.()
          panel.stop()
        }
      }, 'trilogy panel route')
    })
  }
}

