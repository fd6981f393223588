// rawlines.go owns the bench's baseline: the same sequential echo calls as
// raw JSON-RPC lines on a sidecar's stdin/stdout, with no client at all.

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"
)

// rawLines starts a sidecar, adds the fixture, and times calls sequential
// tools/call round trips written and read as lines.
func rawLines(bin, fixture string, calls int) ([]time.Duration, error) {
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer cmd.Wait()
	defer stdin.Close()
	r := bufio.NewReaderSize(stdout, 1<<16)
	// roundTrip writes one request and reads lines until its response
	// (notifications in between are skipped).
	roundTrip := func(id int, line string) error {
		if _, err := io.WriteString(stdin, line); err != nil {
			return err
		}
		want := []byte(`"id":` + strconv.Itoa(id) + `,`)
		for {
			got, err := r.ReadBytes('\n')
			if err != nil {
				return err
			}
			if bytes.Contains(got, want) {
				if bytes.Contains(got, []byte(`"error":{`)) {
					return fmt.Errorf("raw call %d failed: %s", id, got)
				}
				return nil
			}
		}
	}
	if err := roundTrip(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n"); err != nil {
		return nil, err
	}
	add := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"servers/add","params":{"name":"fx","config":{"command":%q}}}`+"\n", fixture)
	if err := roundTrip(2, add); err != nil {
		return nil, err
	}
	lat := make([]time.Duration, 0, calls)
	for i := 0; i < 200+calls; i++ { // 200 warm-up calls, as for the client
		id := 3 + i
		line := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"mcp__fx__echo","arguments":{"message":"hello"}}}` + "\n"
		s := time.Now()
		if err := roundTrip(id, line); err != nil {
			return nil, err
		}
		if i >= 200 {
			lat = append(lat, time.Since(s))
		}
	}
	return lat, nil
}
