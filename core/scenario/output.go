package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload"
)

// ResultFile, LogFile and ConfigFile are the names of a run's output files.
const (
	ResultFile = "result.json"
	LogFile    = "log.txt"
	ConfigFile = "config.toml"
)

// WriteResult writes the run's output folder dir (which it creates):
// result.json (scenario, status, seed, params, records, checks, error,
// the machines' interrupts per source and processor, the files written,
// and timings, the only wall-clock field), log.txt when the run logged
// anything, the resolved configuration (config.toml, every default filled
// in), each run's resolved workload (workload-mM-rN.toml), and the
// profile outputs of core/output (buckets.csv, a pprof profile per
// profile, the Perfetto trace when a kernel logger ran).
func WriteResult(dir string, r Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the output folder: %w", err)
	}
	cfg := r.Config
	if cfg == nil {
		cfg = config.Default()
	}
	var cb bytes.Buffer
	if err := toml.NewEncoder(&cb).Encode(cfg); err != nil {
		return fmt.Errorf("cannot encode the configuration: %w", err)
	}
	files := []string{ConfigFile}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), cb.Bytes(), 0o644); err != nil {
		return fmt.Errorf("cannot write the configuration: %w", err)
	}
	if r.Outputs != nil {
		for _, m := range r.Outputs.Machines() {
			if m.Sim == nil {
				continue
			}
			for i, res := range m.Sim.Results() {
				b, err := workload.Encode(&res.Workload.Spec)
				if err != nil {
					return fmt.Errorf("cannot encode a workload: %w", err)
				}
				name := fmt.Sprintf("workload-m%d-r%d.toml", m.Index, i+1)
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					return fmt.Errorf("cannot write %s: %w", name, err)
				}
				files = append(files, name)
			}
		}
		sum, err := output.Write(dir, r.Outputs)
		if err != nil {
			return err
		}
		files = append(files, sum.Files...)
	}
	r.Files = files
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("cannot encode the result: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("cannot write the result: %w", err)
	}
	if r.Log != "" {
		if err := os.WriteFile(filepath.Join(dir, LogFile), []byte(r.Log), 0o644); err != nil {
			return fmt.Errorf("cannot write the log: %w", err)
		}
	}
	return nil
}
