// main_test.go owns the tests of the release_sums.go generator: every
// downloadable archive taken from SHA256SUMS, a missing or malformed one
// refused, and the file in the module exactly what the generator writes.

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

func sums(version string, skip string) string {
	var b strings.Builder
	for i, p := range Platforms {
		name := client.ArchiveName(version, p[0], p[1])
		if name != skip {
			b.WriteString(strings.Repeat(string("0123456789"[i]), 64) + "  " + name + "\n")
		}
	}
	// Archives the Go client never downloads (glibc builds) are ignored.
	b.WriteString(strings.Repeat("f", 64) + " *mcp-sidecar-v" + version + "-x86_64-unknown-linux-gnu.tar.gz\n")
	return b.String()
}

func TestGenerateTakesEveryDownloadableArchive(t *testing.T) {
	src, err := Generate("1.2.3", strings.NewReader(sums("1.2.3", "")), false)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	words := strings.Join(strings.Fields(text), " ") // gofmt aligns the map's values
	for _, want := range []string{
		`const releaseVersion = "1.2.3"`,
		`"mcp-sidecar-v1.2.3-x86_64-unknown-linux-musl.tar.gz": "` + strings.Repeat("0", 64) + `",`,
		`"mcp-sidecar-v1.2.3-aarch64-apple-darwin.tar.gz": "` + strings.Repeat("3", 64) + `",`,
		`"mcp-sidecar-v1.2.3-x86_64-pc-windows-gnu.zip": "` + strings.Repeat("4", 64) + `",`,
	} {
		if !strings.Contains(words, want) {
			t.Errorf("output lacks %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "linux-gnu") || strings.Count(text, "mcp-sidecar-v1.2.3-") != 5 {
		t.Errorf("output:\n%s", text)
	}
}

func TestGenerateRefusesMissingOrMalformedSums(t *testing.T) {
	darwin := client.ArchiveName("1.2.3", "darwin", "arm64")
	if _, err := Generate("1.2.3", strings.NewReader(sums("1.2.3", darwin)), false); err == nil || !strings.Contains(err.Error(), darwin) {
		t.Fatalf("missing: %v", err)
	}
	src, err := Generate("1.2.3", strings.NewReader(sums("1.2.3", darwin)), true)
	if err != nil || strings.Contains(string(src), darwin) {
		t.Fatalf("allow-missing: %v\n%s", err, src)
	}
	bad := strings.Replace(sums("1.2.3", ""), strings.Repeat("0", 64), "xyz", 1)
	if _, err := Generate("1.2.3", strings.NewReader(bad), false); err == nil || !strings.Contains(err.Error(), "not a hex SHA-256") {
		t.Fatalf("malformed: %v", err)
	}
	if _, err := Generate("v1.2.3", strings.NewReader(""), true); err == nil {
		t.Fatal("a version with a v was accepted")
	}
}

// The checked-in file is the generator's output for its own pins: nobody
// edits it by hand, and the client's version is the one it downloads.
func TestCheckedInFileIsGenerated(t *testing.T) {
	path := filepath.Join("..", "..", "release_sums.go")
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for _, p := range Platforms {
		name := client.ArchiveName(client.ReleaseVersion, p[0], p[1])
		if sum, ok := client.PinnedSHA256(name); ok {
			lines.WriteString(sum + "  " + name + "\n")
		}
	}
	want, err := Generate(client.ReleaseVersion, strings.NewReader(lines.String()), true)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != string(want) {
		t.Fatalf("%s differs from the generator's output:\n%s", path, want)
	}
}
