package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload/importer"
)

// compareFlags are `proflab compare`'s flags.
type compareFlags struct {
	format, process, profile string
	dropIdle                 bool
	rows                     int
	memory                   byteSize
}

func newCompareCmd() *cobra.Command {
	f := compareFlags{memory: byteSize(config.Default().Run.Memory)}
	cmd := &cobra.Command{
		Use:   "compare SOURCE RUN_DIR",
		Short: "Does the lab's profiler agree with the profile you brought? The source against a run's profiles",
		Long: "Compare a real program's profile (SOURCE, any format `proflab workload import` reads) with the\n" +
			"profiles of a run that ran it as its workload (RUN_DIR, the folder of `proflab run --out`, or\n" +
			"its accuracy.csv). For each profile of the run that shares functions with it, the table gives\n" +
			"per module and per function the source's share and the lab's, each with its 95% interval, and\n" +
			"whether they differ beyond sampling error (p < 0.0005, adjusted for the number of rows). When\n" +
			"the run replayed this very source (its sha256 is among the inputs of RUN_DIR/result.json), the\n" +
			"lab's samples are tested against the source's shares (goodness of fit); otherwise source and\n" +
			"lab are two samples (the two-sample test); the output says which. The verdict is \"differ\"\n" +
			"when a row differs or the whole profile's test has p < 0.0005 (the level 0.001 split between\n" +
			"the two), and the output gives the smallest move the comparison finds at its sample counts,\n" +
			"and how many of the source's hottest functions are the lab's hottest.\n" +
			"A run that imported the profile writes the same into its folder (comparison.txt).\n" +
			"docs/workload-import.md (\"Comparing with the source\") explains it.\n" +
			"Exit status: 0 every profile agrees with the source, 1 one differs, 2 bad input.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return withCode(ExitUsage, fmt.Errorf("compare takes a source profile and a run folder, got %d arguments: proflab compare SOURCE RUN_DIR", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd, args[0], args[1], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "", "the source's `FORMAT`, as workload import --format takes it (default: detected from the content)")
	fl.StringVar(&f.process, "process", "", "the `PROCESS` as workload import --process: give what the import that made the workload was given")
	fl.BoolVar(&f.dropIdle, "drop-idle", false, "as workload import --drop-idle: give it when the workload was imported with it")
	fl.StringVar(&f.profile, "profile", "", "compare only the run's profiles whose file name contains this `TEXT`")
	fl.IntVar(&f.rows, "rows", compare.TextRows, "functions to list, the hottest of either side, before those that differ (0: all)")
	fl.Var(&f.memory, "memory", "the source's import's memory budget, as workload import --memory takes it, like 1GiB or 512MiB (0: none)")
	return cmd
}

// runCompare imports the source, reads the run's profiles and prints the
// comparisons.
func runCompare(cmd *cobra.Command, source, run string, f compareFlags) error {
	format, err := importer.ParseFormat(f.format)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("--format: %w", err))
	}
	if f.rows < 0 {
		return withCode(ExitUsage, fmt.Errorf("--rows %d: give a number of rows, or 0 for all", f.rows))
	}
	data, err := input.ReadFile(profileInput, source)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return withCode(ExitUsage, fmt.Errorf("source profile %s does not exist: check the path", source))
		}
		return withCode(ExitUsage, err)
	}
	ctx, stop := budgetContext(cmd, int64(f.memory))
	defer stop()
	im, err := importBudgeted(ctx, "compare's import", source, data, importer.Options{Format: format, Process: f.process, DropIdle: f.dropIdle, Memory: int64(f.memory)})
	data = nil // its memory goes back to the budget
	if err != nil {
		return err
	}
	profs, err := compare.ReadRun(run)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	var chosen []output.ProfileAccuracy
	for _, p := range profs {
		if strings.Contains(p.Profile, f.profile) {
			chosen = append(chosen, p)
		}
	}
	if len(chosen) == 0 {
		return withCode(ExitUsage, fmt.Errorf("--profile %q: no profile of %s has it in its name (%d profiles)", f.profile, run, len(profs)))
	}
	src := compare.SourceOf(im)
	if err := src.Check(); err != nil {
		return withCode(ExitUsage, err)
	}
	inputs, err := compare.ReadInputs(run)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	src.Replayed = inputs[src.SHA256]
	cs := compare.All([]compare.Source{src}, chosen)
	if len(cs) == 0 {
		if f.profile != "" {
			return withCode(ExitUsage, fmt.Errorf("--profile %q: the %d profiles of %s with it in their name (%s) share no function with %s: was the run's workload %s, and did those profiles cover its code? Leave --profile out to compare all %d profiles of the run",
				f.profile, len(chosen), run, names(chosen), source, source, len(profs)))
		}
		return withCode(ExitUsage, fmt.Errorf("no profile of %s shares a function with %s: was the run's workload %s, and did its profiles cover its code?", run, source, source))
	}
	if err := compare.WriteText(cmd.OutOrStdout(), cs, f.rows); err != nil {
		return withCode(ExitUsage, fmt.Errorf("writing the comparison: %w", err))
	}
	for _, c := range cs {
		if c.Outcome == compare.Differ {
			return silentExit(ExitFailed)
		}
	}
	return nil
}

// names lists the profiles' file names, the first three and how many
// more.
func names(ps []output.ProfileAccuracy) string {
	var out []string
	for _, p := range ps[:min(3, len(ps))] {
		out = append(out, p.Profile)
	}
	if len(ps) > 3 {
		out = append(out, fmt.Sprintf("and %d more", len(ps)-3))
	}
	return strings.Join(out, ", ")
}
