module github.com/seam-dev/seam/examples/seamtest

go 1.26.0

require github.com/seam-dev/seam v0.0.0

require (
	github.com/andybalholm/brotli v1.2.8 // indirect
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.27 // indirect
	github.com/aws/smithy-go v1.28.9 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/gobwas/ws v1.5.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/sergi/go-diff v1.4.0 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

// The example tests the seamtest package of this checkout.
replace github.com/seam-dev/seam => ../..
