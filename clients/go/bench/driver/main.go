// Command driver runs the framework benchmark (see ../run.sh): for each
// framework and round it runs the agent through the sidecar and natively,
// alternating which goes first, and measures the time from the agent's
// start to its first tool list, the calls per second through the
// framework's tool interface, and the processes of the agent's tree still
// alive after the agent is killed with SIGKILL (they are killed after
// counting). It prints a Markdown table of medians and the ratios.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type sample struct {
	readyMs     float64
	callsPerSec float64
	left        int
	leftNames   []string
}

func main() {
	agent := flag.String("agent", "", "the agent binary")
	servers := flag.String("servers", "", "the servers file")
	rounds := flag.Int("rounds", 5, "rounds per framework and route")
	calls := flag.Int("calls", 200, "calls per run")
	grace := flag.Duration("grace", 3*time.Second, "how long the killed agent's processes get to exit")
	flag.Parse()

	frameworks := []string{"openai-go", "anthropic-sdk-go", "langchaingo"}
	results := map[string][]sample{}
	for round := 0; round < *rounds; round++ {
		for _, fw := range frameworks {
			routes := []string{"sidecar", "native"}
			if round%2 == 1 {
				routes = []string{"native", "sidecar"}
			}
			for _, via := range routes {
				s, err := runOnce(*agent, *servers, fw, via, *calls, *grace)
				if err != nil {
					fmt.Fprintf(os.Stderr, "driver: %s via %s: %v\n", fw, via, err)
					os.Exit(1)
				}
				fmt.Fprintf(os.Stderr, "round %d %-16s %-7s ready %7.1f ms  %7.0f calls/s  left %d %v\n",
					round+1, fw, via, s.readyMs, s.callsPerSec, s.left, s.leftNames)
				results[fw+"/"+via] = append(results[fw+"/"+via], s)
			}
		}
	}

	fmt.Printf("| framework | route | start → first tool list (ms, median) | calls/s (median) | processes left after `kill -9` (max of %d) |\n", *rounds)
	fmt.Println("|---|---|---|---|---|")
	for _, fw := range frameworks {
		for _, via := range []string{"sidecar", "native"} {
			ss := results[fw+"/"+via]
			route := "mcp-sidecar + adapter"
			if via == "native" {
				route = "native (Go MCP SDK)"
			}
			fmt.Printf("| %s | %s | %.0f | %.0f | %d |\n", fw, route, median(ss, func(s sample) float64 { return s.readyMs }),
				median(ss, func(s sample) float64 { return s.callsPerSec }), maxLeft(ss))
		}
	}
	fmt.Println()
	for _, fw := range frameworks {
		side, native := results[fw+"/sidecar"], results[fw+"/native"]
		fmt.Printf("%s: start %.2fx, calls/s %.2fx (sidecar / native, medians of per-round ratios)\n", fw,
			medianRatio(side, native, func(s sample) float64 { return s.readyMs }),
			medianRatio(side, native, func(s sample) float64 { return s.callsPerSec }))
	}
}

// runOnce runs one agent to its "hold", kills it and counts its tree.
func runOnce(agent, servers, fw, via string, calls int, grace time.Duration) (sample, error) {
	cmd := exec.Command(agent, "-framework", fw, "-via", via, "-servers", servers, "-calls", strconv.Itoa(calls))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	var s sample
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "ready":
			s.readyMs = float64(time.Since(start).Microseconds()) / 1000
		case "calls":
			n, _ := strconv.Atoi(fields[1])
			secs, _ := strconv.ParseFloat(fields[2], 64)
			s.callsPerSec = float64(n) / secs
		}
		if fields[0] == "hold" {
			break
		}
	}
	if s.callsPerSec == 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return s, fmt.Errorf("the agent ended before its calls")
	}
	tree := descendants(cmd.Process.Pid)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	// The processes get a bounded time to notice (stdin EOF) and exit.
	deadline := time.Now().Add(grace)
	for {
		alive := aliveOf(tree)
		if len(alive) == 0 || time.Now().After(deadline) {
			s.left = len(alive)
			for _, pid := range alive {
				s.leftNames = append(s.leftNames, comm(pid))
				_ = syscall.Kill(pid, syscall.SIGKILL) // clean up what the route left behind
			}
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// descendants lists every process below pid (from /proc's parent links).
func descendants(pid int) []int {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		text := string(raw)
		rest := text[strings.LastIndexByte(text, ')')+2:]
		fields := strings.Fields(rest)
		self, _ := strconv.Atoi(strings.Fields(text)[0])
		parent, _ := strconv.Atoi(fields[1])
		children[parent] = append(children[parent], self)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// aliveOf keeps the pids still running (a zombie has exited).
func aliveOf(pids []int) []int {
	var out []int
	for _, pid := range pids {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		text := string(raw)
		state := strings.Fields(text[strings.LastIndexByte(text, ')')+2:])[0]
		if state != "Z" && state != "X" {
			out = append(out, pid)
		}
	}
	return out
}

func comm(pid int) string {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	for _, a := range args {
		if strings.Contains(a, "mcp-server") || strings.Contains(a, "mcp-sidecar") {
			return filepath.Base(a)
		}
	}
	return filepath.Base(args[0])
}

func median(ss []sample, f func(sample) float64) float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	return mid(v)
}

func medianRatio(a, b []sample, f func(sample) float64) float64 {
	v := make([]float64, 0, len(a))
	for i := range a {
		if i < len(b) && f(b[i]) > 0 {
			v = append(v, f(a[i])/f(b[i]))
		}
	}
	return mid(v)
}

func mid(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func maxLeft(ss []sample) int {
	m := 0
	for _, s := range ss {
		if s.left > m {
			m = s.left
		}
	}
	return m
}
