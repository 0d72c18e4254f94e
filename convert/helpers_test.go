package convert

import "github.com/seam-dev/seam/internal/streamtest"

// readTestdata is streamtest.ReadRealworld.
var readTestdata = streamtest.ReadRealworld
