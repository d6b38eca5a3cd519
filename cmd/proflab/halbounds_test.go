package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// boundsRow is one version range of the documented bounds.
type boundsRow struct {
	from, to     string // to "" for "and later"
	timer, count string // "min / default / max", or "" for none
}

// documentedBounds reads the table after <!-- hal-bounds --> in
// docs/scenario-api.md.
func documentedBounds(t *testing.T) []boundsRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "scenario-api.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "<!-- hal-bounds -->\n")
	if !ok {
		t.Fatal("docs/scenario-api.md has no <!-- hal-bounds --> table")
	}
	triple := regexp.MustCompile(`^\d+ / \d+ / \d+$`)
	var rows []boundsRow
	for _, line := range strings.Split(table, "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		r := boundsRow{timer: cells[1], count: cells[2]}
		if !triple.MatchString(r.count) {
			r.count = ""
		}
		if from, ok := strings.CutSuffix(cells[0], " and later"); ok {
			r.from = from
		} else {
			r.from, r.to, _ = strings.Cut(cells[0], " – ")
		}
		rows = append(rows, r)
	}
	return rows
}

// versionLess compares dotted versions numerically; a shorter prefix
// ("10.0") stands for every version it starts ("10.0.19041").
func versionLess(a, b string) bool {
	x, y := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(x) && i < len(y); i++ {
		m, _ := strconv.Atoi(x[i])
		n, _ := strconv.Atoi(y[i])
		if m != n {
			return m < n
		}
	}
	return false
}

func (r boundsRow) holds(v string) bool {
	return !versionLess(v, r.from) && (r.to == "" || !versionLess(r.to, v))
}

var listRow = regexp.MustCompile(`(?m)^  0x(00|02)\s+\S+\s+\S+\s+(\d+)\s+(\d+)\s+(\d+)\s`)

// m:hal_sources()'s documented bounds are what `proflab hal list` prints
// for the version and what m:hal_sources() returns on it.
func TestHalSourcesBoundsMatchHalList(t *testing.T) {
	rows := documentedBounds(t)
	if len(rows) < 3 {
		t.Fatalf("documented bounds: %+v", rows)
	}
	script := filepath.Join(t.TempDir(), "bounds.lua")
	err := os.WriteFile(script, []byte(`local lab = require "proflab"
local m = lab.machine{ version = lab.params.version }
for _, r in ipairs(m:hal_sources()) do
  if r.source == 0 or r.source == 2 then print(("source %d: %d / %d / %d"):format(r.source, r.min, r.default, r.max)) end
end`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"5.2", "6.1", "6.3", "10.0", "10.0.19041"} {
		t.Run(v, func(t *testing.T) {
			var doc *boundsRow
			for i := range rows {
				if rows[i].holds(v) {
					doc = &rows[i]
				}
			}
			if doc == nil {
				t.Fatalf("no documented row holds version %s: %+v", v, rows)
			}
			code, out, errOut := runCLI("hal", "list", "--config-set", "machine.version="+v)
			if code != 0 {
				t.Fatalf("hal list: exit %d: %s", code, errOut)
			}
			listed := map[string]string{}
			for _, m := range listRow.FindAllStringSubmatch(out, -1) {
				if _, seen := listed[m[1]]; !seen { // pmu's row, not pebs's
					listed[m[1]] = m[2] + " / " + m[3] + " / " + m[4]
				}
			}
			if listed["00"] != doc.timer || listed["02"] != doc.count {
				t.Errorf("version %s: hal list prints ProfileTime %q, counters %q; the docs say %q, %q", v, listed["00"], listed["02"], doc.timer, doc.count)
			}
			code, out, errOut = runCLI("run", script, "--set", "version=\""+v+"\"")
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, errOut)
			}
			want := "source 0: " + doc.timer + "\n"
			if doc.count != "" {
				want += "source 2: " + doc.count + "\n"
			}
			if got := strings.Join(regexp.MustCompile(`(?m)^source \d: .*\n`).FindAllString(out, -1), ""); got != want {
				t.Errorf("version %s: m:hal_sources() gives\n%s, the docs\n%s", v, got, want)
			}
		})
	}
}
