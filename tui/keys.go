package tui

import "charm.land/bubbles/v2/key"

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
		PgDown:    key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn/space", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "bottom")),
		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:      key.NewBinding(key.WithKeys("esc", "backspace", "h", "left"), key.WithHelp("esc", "back")),
		NextTab:   key.NewBinding(key.WithKeys("tab", "l", "right"), key.WithHelp("tab", "next tab")),
		PrevTab:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev tab")),
		Tab:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "tab")),
		Next:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", "next/prev")),
		Prev:      key.NewBinding(key.WithKeys("N")),
		Search:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Filter:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filter")),
		Sort:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s/S", "sort")),
		Reverse:   key.NewBinding(key.WithKeys("S")),
		View:      key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "unified/split")),
		Side:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "side")),
		Events:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "chunks/events")),
		Engine:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "engine")),
		Toggle:    key.NewBinding(key.WithKeys("space", "enter", "+", "-"), key.WithHelp("space", "toggle")),
		Reset:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "recorded engine")),
		Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Interrupt: key.NewBinding(key.WithKeys("ctrl+c")),
		Follow:    key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow newest")),
		Group:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "by session")),
		Fold:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "fold session")),
		Session:   key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "session turns")),
		Clear:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear search/filter")),
		Space:     key.NewBinding(key.WithKeys("space")),
		Decrease:  key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "decrease")),
		Accept:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Erase:     key.NewBinding(key.WithKeys("backspace")),
		EraseAll:  key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "clear")),
	}
}

// helpKeys is a help.KeyMap for one screen.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

// ShortHelp returns the bindings of the help bar.
func (h helpKeys) ShortHelp() []key.Binding { return h.short }

// FullHelp returns the bindings of the full help, in columns.
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

// listHelp is the help of the exchange list.
func (k keyMap) listHelp() helpKeys {
	return helpKeys{
		short: []key.Binding{k.Open, k.Filter, k.Sort, k.Search, k.Engine, k.Help, k.Quit},
		full: [][]key.Binding{
			{k.Up, k.Down, k.PgUp, k.PgDown, k.Top, k.Bottom},
			{k.Open, k.Filter, k.Sort, k.Search, k.Next, k.Follow},
			{k.Group, k.Fold, k.Session},
			{k.Engine, k.Copy, k.Help, k.Quit},
		},
	}
}

// sessionHelp is the help of the session view.
func (k keyMap) sessionHelp() helpKeys {
	b := []key.Binding{k.Up, k.Down, k.Open, k.Back, k.Search, k.Help, k.Quit}
	return helpKeys{short: b, full: [][]key.Binding{{k.Up, k.Down, k.PgUp, k.PgDown, k.Top, k.Bottom}, {k.Open, k.Back, k.Search, k.Help, k.Quit}}}
}

// detailHelp is the help of the exchange detail on tab t.
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
	return helpKeys{
		short: short,
		full: [][]key.Binding{
			{k.Up, k.Down, k.PgUp, k.PgDown, k.Top, k.Bottom},
			{k.NextTab, k.PrevTab, k.Tab, k.Back, k.Open},
			{k.Next, k.View, k.Side, k.Events, k.Search},
			{k.Engine, k.Reset, k.Copy, k.Help, k.Quit},
		},
	}
}

// engineHelp is the help of the engine switch panel.
func (k keyMap) engineHelp() helpKeys {
	b := []key.Binding{k.Up, k.Down, k.Toggle, k.Reset, k.Back}
	return helpKeys{short: b, full: [][]key.Binding{b}}
}
