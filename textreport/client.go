package textreport

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/visible"
)

// WriteClient writes what one emulated client ends up with.
func WriteClient(w io.Writer, r *inspect.Report, client string) error {
	bw := bufio.NewWriter(w)
	for _, x := range r.Exchanges {
		if x.WebSocket == nil && !slices.Contains(clients.For(x.Protocol), client) {
			fmt.Fprintf(bw, "== exchange %d: %s does not read %s (its clients: %s)\n", x.Ex, client, x.Protocol, strings.Join(clients.For(x.Protocol), ", "))
			continue
		}
		for _, c := range x.Clients {
			if c.Client != client {
				continue
			}
			fmt.Fprintf(bw, "== exchange %d as %s (%s)\n", x.Ex, c.Client, c.Rule)
			fmt.Fprintf(bw, "text: %s\n", strconv.Quote(c.Text))
			if c.Display != nil {
				fmt.Fprintf(bw, "display: %s\n", strconv.Quote(*c.Display))
			}
			for _, tc := range c.ToolCalls {
				fmt.Fprintf(bw, "tool %d %s %s #%s\n", tc.Index, visible.String(tc.Name), visible.String(tc.Arguments), visible.String(tc.ID))
			}
			fmt.Fprintf(bw, "finish: %s\n", orDash(c.FinishReason))
			if c.Error != "" {
				fmt.Fprintf(bw, "error: %s\n", visible.String(c.Error))
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write client view: %w", err)
	}
	return nil
}
