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
        .ticket { max-width: 32rem; }
        .ticket h1 { margin: .2rem 0 .8rem; overflow-wrap: anywhere; }
        .facts { margin: 0 0 1rem; } .facts div { padding: .35rem 0; border-bottom: 1px solid var(--line); }
        .facts dt { font-size: .85rem; color: var(--muted); } .facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
        .notice { border-left: 4px solid var(--bad); background: #fdecea; padding: .5rem .8rem; margin: 0 0 1rem; }
        .notice p { margin: .2rem 0; overflow-wrap: anywhere; }
        .wallet .button { background: #000; font-size: 1.05rem; padding: .7rem 1.2rem; }
        .qr { margin: 0; } .qr svg { display: block; width: 100%; min-width: 14rem; max-width: 18rem; height: auto; }
        .qr figcaption { margin-top: .4rem; } .serial { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
        """
}
