/// The one stylesheet every page uses: readable at a phone's width, visible keyboard focus.
enum Stylesheet {
    static let site = """
        :root { --ink: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --accent: #0a58ca; --ok: #137333;
          --warn: #9a6700; --bad: #b3261e; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; color: var(--ink); background: #fff; line-height: 1.45; }
        main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
        a { color: var(--accent); }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        label { display: block; font-weight: 600; margin: .6rem 0 .2rem; }
        input, select, textarea, button { font: inherit; padding: .45rem .6rem; border: 1px solid var(--line);
          border-radius: 6px; max-width: 100%; }
        button, .button { background: var(--accent); color: #fff; border: 0; cursor: pointer; text-decoration: none;
          display: inline-block; padding: .5rem .9rem; border-radius: 6px; }
        button.danger { background: var(--bad); }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        .table-wrap { overflow-x: auto; }
        .muted { color: var(--muted); }
        .status-ok { color: var(--ok); } .status-warn { color: var(--warn); } .status-bad { color: var(--bad); }
        @media (max-width: 40rem) { main { padding: .6rem; } th, td { padding: .3rem; } }
        """
}
