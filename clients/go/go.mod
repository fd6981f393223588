module mcpsidecar.local/client

go 1.24
