// The viewer's stylesheet, served as /viewer.css (the page's CSP allows styles from the same
// origin only: no inline style).

/** The viewer's CSS. */
export const VIEWER_CSS = `
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1f2328; --dim: #6e7781; --line: #d8dee4;
  --card: #ffffff; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --accent: #0969da;
  --l0: #8250df; --l1: #bf3989; --l2: #0a7b83; --l3: #9a6700; --l4: #1f6feb; --l5: #bc4c00; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --dim: #8b949e;
  --line: #30363d; --card: #161b22; --ok: #3fb950; --bad: #f85149; --warn: #d29922; --accent: #58a6ff; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 ui-sans-serif, system-ui, -apple-system, "Segoe UI", sans-serif; }
pre { margin: 4px 0 0; font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  white-space: pre-wrap; overflow-wrap: anywhere; unicode-bidi: plaintext; }
.top { position: sticky; top: 0; z-index: 2; background: var(--bg); border-bottom: 1px solid var(--line);
  padding: 8px 16px; }
.top-line { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
.title { font-size: 16px; margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.meta { color: var(--dim); font-size: 12px; overflow-wrap: anywhere; }
.format { font-size: 12px; color: var(--dim); border: 1px solid var(--line); border-radius: 10px; padding: 0 8px; }
.conn { font-size: 12px; border-radius: 10px; padding: 0 8px; border: 1px solid currentColor; }
.conn[data-state="live"] { color: var(--ok); }
.conn[data-state="connecting"], .conn[data-state="reconnecting"] { color: var(--warn); }
.conn[data-state="ended"] { color: var(--dim); }
.conn[data-state="error"] { color: var(--bad); }
.gap:not(:empty) { font-size: 12px; color: var(--bad); }
.totals { display: flex; gap: 14px; flex-wrap: wrap; font-size: 12px; color: var(--dim); margin-top: 4px; }
.totals .bad { color: var(--bad); }
.totals .cost { color: var(--fg); font-weight: 600; }
.log { padding: 8px 16px 48px; max-width: 1100px; }
.earlier { margin: 8px 16px 0; }
.row { margin: 6px 0; padding: 6px 10px; border-radius: 6px; background: var(--card);
  border: 1px solid var(--line); outline-offset: 2px;
  /* Rows out of view are not laid out or painted: a long log costs what is on screen. */
  content-visibility: auto; contain-intrinsic-size: auto 44px; }
.row:focus { outline: 2px solid var(--accent); }
.row > span + span, .tool-head > span + span { margin-left: 10px; }
.lane { margin-left: 28px; border-left: 4px solid var(--lc); }
.lane-0 { --lc: var(--l0); } .lane-1 { --lc: var(--l1); } .lane-2 { --lc: var(--l2); }
.lane-3 { --lc: var(--l3); } .lane-4 { --lc: var(--l4); } .lane-5 { --lc: var(--l5); }
.lane-head { border-left-width: 6px; }
.badge { font-size: 11px; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; color: var(--dim); }
.state { font-size: 12px; color: var(--dim); }
.status-ok .state, .status-completed .state { color: var(--ok); }
.status-failed .state, .status-denied .state { color: var(--bad); }
.status-running .state { color: var(--warn); }
.status-cancelled .state, .status-incomplete .state { color: var(--warn); }
.usage, .dur, .reason, .model, .exit, .files, .code { font-size: 12px; color: var(--dim); }
.run { border-color: var(--accent); border-width: 1px 1px 1px 4px; }
.run .input { font-size: 13.5px; }
.run-end { background: transparent; }
.round { background: transparent; border: none; border-top: 1px dashed var(--line); border-radius: 0; padding: 2px 0 0; }
.round-end { background: transparent; border-style: dashed; }
.message .who, .reasoning .who, .user .who { font-size: 11px; font-weight: 600; color: var(--dim); text-transform: uppercase; }
.message .text { font: inherit; white-space: pre-wrap; }
.reasoning { background: transparent; border-style: dotted; }
.reasoning .text, .reasoning .dim { color: var(--dim); font-style: italic; font-family: inherit; }
.tool-head { all: unset; cursor: pointer; display: block; width: 100%; }
.tool-head:focus-visible { outline: 2px solid var(--accent); }
.tool-name { font-weight: 600; font-family: ui-monospace, monospace; }
.tool-kind, .tool-server { font-size: 11px; border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; color: var(--dim); }
.mark { color: var(--dim); display: inline-block; width: 1em; }
.args { color: var(--dim); }
.output { border-top: 1px solid var(--line); padding-top: 4px; }
.more { font-size: 12px; margin-top: 4px; background: none; border: none; color: var(--accent); cursor: pointer; padding: 0; }
.approval, .question { border-color: var(--warn); border-left-width: 4px; }
.choices { margin-top: 4px; display: flex; gap: 6px; flex-wrap: wrap; }
.choice { font-size: 12px; border: 1px solid var(--line); border-radius: 10px; padding: 0 8px; }
.q { margin-top: 4px; }
.answer { color: var(--ok); }
.notice { border-style: dashed; }
.notice.warning .badge { color: var(--warn); }
.error .badge, .error-text { color: var(--bad); }
.fatal { border-color: var(--bad); }
.plan-items { margin: 4px 0 0; padding-left: 8px; list-style: none; }
.plan-completed { color: var(--dim); text-decoration: line-through; }
.status-line { position: fixed; bottom: 24px; left: 0; right: 0; padding: 2px 16px; font-size: 12px; color: var(--dim);
  background: var(--bg); border-top: 1px solid var(--line); overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.status-line:empty { display: none; }
.help { position: fixed; bottom: 0; left: 0; right: 0; padding: 3px 16px; font-size: 11px; color: var(--dim);
  background: var(--bg); border-top: 1px solid var(--line); }
`;
