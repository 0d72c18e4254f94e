package tui

import (
	"charm.land/lipgloss/v2"
)

// styles holds every style the TUI paints with, built for a light or a dark
// background. Meaning never rests on colour alone: diff lines carry +/-
// gutters, changed bytes are underlined (inserted) or struck through
// (deleted), the selected row is reversed and badges carry letters, so the
// screen reads the same with NO_COLOR.
type styles struct {
	title    lipgloss.Style
	dim      lipgloss.Style
	bold     lipgloss.Style
	selected lipgloss.Style
	tab      lipgloss.Style
	tabOn    lipgloss.Style
	header   lipgloss.Style

	errBadge  lipgloss.Style
	warnBadge lipgloss.Style
	infoBadge lipgloss.Style
	okText    lipgloss.Style
	failText  lipgloss.Style

	add      lipgloss.Style
	del      lipgloss.Style
	addEmph  lipgloss.Style
	delEmph  lipgloss.Style
	ctx      lipgloss.Style
	hunkHead lipgloss.Style
	hunkOn   lipgloss.Style

	marker   lipgloss.Style // visible invisibles: ␍ ⇥ · ⟨U+200B⟩
	match    lipgloss.Style // search matches
	flagged  lipgloss.Style // timeline rows a finding points at
	boundary lipgloss.Style

	upstream lipgloss.Style
	client   lipgloss.Style

	input  lipgloss.Style
	notice lipgloss.Style
}

// newStyles builds the styles for a dark or light background. Diff colours
// are the basic ANSI colours, which follow the user's terminal palette.
func newStyles(isDark bool) styles {
	ld := lipgloss.LightDark(isDark)
	faint := ld(lipgloss.Color("#6b6b6b"), lipgloss.Color("#8a8a8a"))
	accent := ld(lipgloss.Color("#5a3fc0"), lipgloss.Color("#b4a2ff"))
	yellow := ld(lipgloss.Color("#8a6a00"), lipgloss.Yellow)
	s := styles{
		title:    lipgloss.NewStyle().Bold(true).Foreground(accent),
		dim:      lipgloss.NewStyle().Foreground(faint),
		bold:     lipgloss.NewStyle().Bold(true),
		selected: lipgloss.NewStyle().Reverse(true),
		tab:      lipgloss.NewStyle().Foreground(faint),
		tabOn:    lipgloss.NewStyle().Bold(true).Underline(true).Foreground(accent),
		header:   lipgloss.NewStyle().Bold(true),

		errBadge:  lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Red),
		warnBadge: lipgloss.NewStyle().Bold(true).Foreground(yellow),
		infoBadge: lipgloss.NewStyle().Foreground(lipgloss.Blue),
		okText:    lipgloss.NewStyle().Foreground(lipgloss.Green),
		failText:  lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Red),

		add:      lipgloss.NewStyle().Foreground(lipgloss.Green),
		del:      lipgloss.NewStyle().Foreground(lipgloss.Red),
		addEmph:  lipgloss.NewStyle().Foreground(lipgloss.Green).Bold(true).Underline(true),
		delEmph:  lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true).Strikethrough(true),
		ctx:      lipgloss.NewStyle(),
		hunkHead: lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		hunkOn:   lipgloss.NewStyle().Foreground(lipgloss.Cyan).Bold(true).Reverse(true),

		marker:   lipgloss.NewStyle().Foreground(faint).Faint(true),
		match:    lipgloss.NewStyle().Reverse(true).Underline(true),
		flagged:  lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true),
		boundary: lipgloss.NewStyle().Foreground(lipgloss.Magenta),

		upstream: lipgloss.NewStyle().Foreground(lipgloss.Blue),
		client:   lipgloss.NewStyle().Foreground(lipgloss.Magenta),

		input:  lipgloss.NewStyle().Bold(true),
		notice: lipgloss.NewStyle().Foreground(yellow),
	}
	return s
}
