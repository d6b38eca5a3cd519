// Package sweep runs batch experiment sweeps: one Lua scenario over a grid
// of parameters, repeats and seeds, on N workers, into one output folder,
// the same on a laptop and as the shards of a Slurm job array or a
// Kubernetes Indexed Job.
//
// A sweep file ([ReadFile]) is strict TOML naming the scenario, a master
// seed, repeats, and the parameters: [grid] axes (lists or ranges) crossed
// in name order, [zip] lists walked in lockstep and crossed with the grid,
// [set] fixed values, and [config], which maps a parameter to the
// configuration key its value sets for the run (version =
// "machine.version" makes the grid's version axis a version matrix).
// [Expand] turns it into runs. Choices the issue left open, made here:
//
//   - Order: grid axes in name order, the first outermost, then the zipped
//     lists, then the repeats. A run's Index is its place in that order;
//     the final results.jsonl is in that order.
//   - Ids: the first 16 hex digits of the sha256 of the canonical JSON of
//     {params, repeat}; seeds: sha256("proflab seed", master seed, id),
//     kept below 2^53 so Lua's numbers hold them.
//   - A parameter's value is a string, number, boolean, or a list of them
//     (a HAL order); [config] hands it to the configuration as a TOML
//     literal.
//   - --set pins a parameter: a swept one becomes fixed.
//   - Shards: run i belongs to shard i mod N (round-robin balances slow
//     and fast grid points over the shards).
//   - The plan's hash covers the sweep file's text, the --set values, the
//     scenario's text and the lab configuration's text: resuming into or
//     merging folders of a plan with another hash is refused.
//   - Status: ok (no error, every check passed), failed (a check failed,
//     a HAL plugin crashed, hung or answered nonsense, or the run ran out
//     of time), error (a Lua error, an unreadable scenario, a proflab bug).
//   - Results name the scenario as the sweep file does, and hold no
//     process id or Go stack (those are in the run's log; a plugin's own
//     message is scrubbed: results.Scrub), so that a result does not
//     depend on the folder, worker, process or shard it ran in.
//   - A plugin is an input of the runs it served, by the sha256 of the
//     bytes its process was started from; a run during which a plugin
//     start timed out runs again alone (the busy machine's fault).
//
// [Execute] runs the runs on workers, each with a fresh machine and Lua
// state per run through the scenario runner (core/scenario), and HAL
// plugin processes kept warm per worker; a crashed or hung plugin is
// restarted by the plugin host for the worker's next run. Each finished
// run is appended to results.jsonl (package results) by one write; when
// the context ends, runs in progress are dropped and the plugins are
// stopped; --resume ([Options.Resume]) skips the finished ids and drops a
// torn last line. [Merge] joins shards. A run found twice in a results
// file is refused by every reader (results.DuplicateError), never
// resolved by keeping one of its lines. At the end the reports (package
// report) are written.
package sweep
