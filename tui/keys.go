package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMap holds every binding. Which ones apply depends on the screen; the
// help bar shows the ones that do.
type keyMap struct {
	Up, Down, PgUp, PgDown, Top, Bottom key.Binding
	Open, Back                          key.Binding
	NextTab, PrevTab, Tab               key.Binding
	Next, Prev                          key.Binding
	Search, Filter, Sort, Reverse       key.Binding
	View, Side, Events                  key.Binding
	Engine, Toggle, Reset               key.Binding
	Copy, Help, Quit, Interrupt         key.Binding
	Follow                              key.Binding
	// Group groups the list by session, Fold folds the session under the
	// cursor and Session opens the session view.
	Group, Fold, Session key.Binding
	// Clear drops the search (and, in the list, the filter).
	Clear key.Binding
	// Space is the key of PgDown that the list does not page with.
	Space key.Binding
	// Decrease lowers a numeric switch in the engine panel.
	Decrease key.Binding
	// Accept, Cancel, Erase and EraseAll edit the search and filter line.
	Accept, Cancel, Erase, EraseAll key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PgUp:      key.NewBinding(key.WithKeys("pgup", "ctrl+u", "b"), key.WithHelp("pgup/b", "page up")),
		PgDown:    key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "bottom")),
		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:      key.NewBinding(key.WithKeys("esc", "backspace", "h", "left"), key.WithHelp("esc/h", "back")),
		NextTab:   key.NewBinding(key.WithKeys("tab", "l", "right"), key.WithHelp("tab/l", "next tab")),
		PrevTab:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev tab")),
		Tab:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "tab")),
		Next:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", "next/prev")),
		Prev:      key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous")),
		Search:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Filter:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filter")),
		Sort:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s/S", "sort")),
		Reverse:   key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse sort")),
		View:      key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "unified/split")),
		Side:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "side")),
		Events:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "chunks/events")),
		Engine:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "engine")),
		Toggle:    key.NewBinding(key.WithKeys("space", "enter", "+", "-"), key.WithHelp("space/+", "toggle, raise")),
		Reset:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "recorded engine")),
		Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Interrupt: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "interrupt")),
		Follow:    key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow newest")),
		Group:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "by session")),
		Fold:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "fold session")),
		Session:   key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "session turns")),
		Clear:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear search/filter")),
		Space:     key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "page down")),
		Decrease:  key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "lower")),
		Accept:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Erase:     key.NewBinding(key.WithKeys("backspace"), key.WithHelp("backspace", "erase")),
		EraseAll:  key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "erase all")),
	}
}

// scope is where a key binding applies: a set of screens.
type scope uint16

// Scopes of the key bindings.
const (
	inList     scope = 1 << iota // the exchange list
	inDetail                     // every tab of the exchange detail
	inDiff                       // the Diff tab
	inTimeline                   // the Timeline tab
	inFindings                   // the Findings tab
	inPanel                      // the engine switch panel
	inInput                      // typing a search or a filter
	inSession                    // a session's turns
)

// helpColumns name the columns of the full help, in order.
var helpColumns = []string{"move", "act", "look", "edit search/filter", "engine"}

// entry is one key binding of the help table: where it applies, the help
// column it is listed in, and what the full help says it does when that is
// more than its help bar text ("keys:text" when the keys shown differ too).
type entry struct {
	b     *key.Binding
	where scope
	col   int
	doc   string
}

// entries is the help table: every binding of k, once, with where it
// applies. The full help is made from it, so it lists every key a screen
// answers; a test checks that no binding of keyMap is missing from it.
func (k *keyMap) entries() []entry {
	const (
		move = iota
		act
		look
		edit
		engine
	)
	both, tabs := inList|inDetail, inDetail|inDiff|inTimeline|inFindings
	all := both | inSession
	return []entry{
		{&k.Up, all | inPanel, move, ""}, {&k.Down, all | inPanel, move, ""}, {&k.PgUp, all, move, ""}, {&k.PgDown, all, move, ""},
		{&k.Space, tabs, move, ""}, {&k.Top, all, move, ""}, {&k.Bottom, all, move, ""},
		{&k.NextTab, tabs, move, ""}, {&k.PrevTab, tabs, move, ""}, {&k.Tab, tabs, move, ""}, {&k.Back, tabs | inPanel | inSession, move, ""},
		{&k.Open, all, act, "open; in a tab, go to the event"}, {&k.Filter, inList, act, "filter (applies as you type)"},
		{&k.Sort, inList, act, "s:sort by the next key"}, {&k.Reverse, inList, act, "reverse the sort"},
		{&k.Group, inList, act, "group the list by session"}, {&k.Fold, inList, act, "fold a session (grouped)"},
		{&k.Session, inList | inSession, act, "a session's turns, or back"},
		{&k.Search, all, act, "search what is shown (counts matches); f reads bodies"}, {&k.Next, all, act, "n:next match, hunk or finding"},
		{&k.Prev, all, act, "previous match, hunk or finding"}, {&k.Clear, all, act, ""},
		{&k.Follow, inList, act, ""}, {&k.Copy, both, act, ""}, {&k.Help, all | inPanel, act, ""},
		{&k.Quit, all | inPanel, act, "quit (exit status 0)"}, {&k.Interrupt, all | inPanel | inInput, act, "interrupt (exit status 130, as any seam command)"},
		{&k.View, inDiff, look, ""}, {&k.Side, inTimeline, look, ""}, {&k.Events, inTimeline, look, ""},
		{&k.Accept, inInput, edit, ""}, {&k.Cancel, inInput, edit, ""}, {&k.Erase, inInput, edit, ""}, {&k.EraseAll, inInput, edit, ""},
		{&k.Engine, both | inPanel, engine, ""}, {&k.Toggle, inPanel, engine, ""}, {&k.Decrease, inPanel, engine, ""}, {&k.Reset, tabs | inPanel, engine, ""},
	}
}

// fullHelp returns the columns of the full help for a screen: every
// binding that applies there, and the keys that edit the search and
// filter line (typed from it).
func (k *keyMap) fullHelp(where scope) (names []string, cols [][]key.Binding) {
	cols = make([][]key.Binding, len(helpColumns))
	for _, e := range k.entries() {
		if e.where&where != 0 || (where != inPanel && e.where&inInput != 0) {
			b := *e.b
			if e.doc != "" {
				keys, doc, ok := strings.Cut(e.doc, ":")
				if !ok {
					keys, doc = b.Help().Key, e.doc
				}
				b.SetHelp(keys, doc)
			}
			cols[e.col] = append(cols[e.col], b)
		}
	}
	for i, c := range cols {
		if len(c) > 0 {
			names = append(names, helpColumns[i])
			cols[len(names)-1] = c
		}
	}
	return names, cols[:len(names)]
}

// helpKeys is a help.KeyMap for one screen's help bar.
type helpKeys struct {
	short []key.Binding
}

// ShortHelp returns the bindings of the help bar.
func (h helpKeys) ShortHelp() []key.Binding { return h.short }

// FullHelp returns nil: the full help is drawn from fullHelp.
func (h helpKeys) FullHelp() [][]key.Binding { return nil }

// listHelp is the help bar of the exchange list.
func (k keyMap) listHelp() helpKeys {
	return helpKeys{short: []key.Binding{k.Open, k.Filter, k.Sort, k.Search, k.Engine, k.Help, k.Quit}}
}

// sessionHelp is the help bar of the session view.
func (k keyMap) sessionHelp() helpKeys {
	return helpKeys{short: []key.Binding{k.Up, k.Down, k.Open, k.Back, k.Search, k.Help, k.Quit}}
}

// detailHelp is the help bar of the exchange detail on tab t.
func (k keyMap) detailHelp(t int) helpKeys {
	short := []key.Binding{k.NextTab, k.Back}
	switch t {
	case tabDiff:
		short = append(short, k.Next, k.View, k.Open)
	case tabTimeline:
		short = append(short, k.Next, k.Side, k.Events, k.Open)
	case tabFindings:
		short = append(short, k.Next, k.Open)
	}
	short = append(short, k.Search, k.Engine, k.Copy, k.Help, k.Quit)
	return helpKeys{short: short}
}

// engineHelp is the help bar of the engine switch panel.
func (k keyMap) engineHelp() helpKeys {
	return helpKeys{short: []key.Binding{k.Up, k.Down, k.Toggle, k.Reset, k.Back}}
}
