// Package query provides the questions asked across many inspected
// exchanges, for seam's inspect, stats, grep, export and report over
// directories and for the TUI's filter and search:
//
//   - the filter language (ParseFilter, Filter, Row, FilterHelp): terms
//     such as model=gpt-5* outcome!=complete gap.max>2s, all of which an
//     exchange must satisfy; "seam help where" prints FilterHelp;
//   - search (Search, SearchText, Scope): where a regular expression
//     matches an exchange's assembled text and tool calls, its request's
//     messages and its headers, each match naming its place and the event
//     that added its first byte;
//   - stats (Stats, StatsGroup, Summary, StatsReport): exchanges added up in groups
//     sharing a model, endpoint, host, session, day, capture or protocol:
//     outcomes, time to first byte and gaps between chunks as nearest-rank
//     percentiles (internal/dist), stalls, tokens and findings by id;
//   - pairing (PairByNumber): the exchanges of two inputs paired by number
//     as they are read, for seam diff over every pair.
//
// It reads what inspect reports of an exchange (inspect.ExchangeReport)
// and the exchange as the capture holds it (tape.Exchange); it does not
// inspect, open captures or render (cmd/seam and tui print what it
// returns), and inspect does not import it.
package query
