package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ResultFile and LogFile are the names of a run's output files.
const (
	ResultFile = "result.json"
	LogFile    = "log.txt"
)

// WriteResult writes dir/result.json (scenario, status, seed, params,
// records, checks, error and timings; timings are the only wall-clock
// field) and, when the run logged anything, dir/log.txt. It creates dir.
func WriteResult(dir string, r Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the output folder: %w", err)
	}
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
