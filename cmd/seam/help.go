package main

import (
	"embed"
	"strings"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/replay"
)

// helpFiles holds the text of "seam help NAME" for each command, in
// help/NAME.txt, prose a writer edits without reading Go.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpValues fills the help texts' {{placeholders}}: lists that come
// from the packages, so the help never lags behind them.
var helpValues = strings.NewReplacer(
	"{{clients}}", strings.Join(clients.All(), ", "),
	"{{ignored-fields}}", strings.Join(replay.DefaultIgnore(), ", "),
	"{{decoded-header}}", replay.DecodedHeader,
	"{{faults}}", strings.Join(replay.FaultKinds(), ", "),
	"{{stats-keys}}", strings.Join(query.StatsKeys(), ", "),
)

// helpText returns the text of "seam help name", between its synopsis and
// its flags.
func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("seam: no help text for " + name) // a file missing from the build
	}
	return helpValues.Replace(string(b))
}
