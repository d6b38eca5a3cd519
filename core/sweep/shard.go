package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// ShardEnv are the environment variables --shard auto/N reads, in order:
// a Slurm job array's task id and a Kubernetes Indexed Job's completion
// index.
var ShardEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// ParseShard reads --shard: "K/N" (K counting from 0) or "auto/N", which
// takes K from the first variable of ShardEnv that getenv returns. It
// also returns where K came from ("" for K/N), for the command to say.
func ParseShard(s string, getenv func(string) string) (Shard, string, error) {
	ks, ns, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 {
		return Shard{}, "", fmt.Errorf("--shard %q: want K/N (K from 0 to N-1, for example 0/3) or auto/N", s)
	}
	from := ""
	if ks == "auto" {
		for _, v := range ShardEnv {
			if ks = getenv(v); ks != "" {
				from = v
				break
			}
		}
		if from == "" {
			return Shard{}, "", fmt.Errorf("--shard auto/%d: neither %s is set; outside a Slurm job array or a Kubernetes Indexed Job give K/%d", n, strings.Join(ShardEnv, " nor "), n)
		}
	}
	k, err := strconv.Atoi(ks)
	if err != nil || k < 0 || k >= n {
		where := ""
		if from != "" {
			where = " (from " + from + ")"
		}
		return Shard{}, "", fmt.Errorf("--shard %s: shard index %q%s is not 0…%d; a Slurm array for N shards is --array=0-%d", s, ks, where, n-1, n-1)
	}
	return Shard{Index: k, Count: n}, from, nil
}
