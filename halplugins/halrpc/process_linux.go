package halrpc

import (
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// setProcessAttrs starts the plugin in a process group of its own, so that
// killing the group also ends whatever the plugin started (a shell script's
// children keep its stdout open, and go-plugin waits for stdout to close),
// and makes the kernel kill the plugin when the host process dies. Go does
// not end OS threads that started children unless they were locked, so the
// parent-death signal follows the process. A group of its own also keeps
// the terminal's Ctrl-C from reaching the plugin: the host decides when it
// stops.
func setProcessAttrs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// killGroup sends SIGKILL to the plugin's process group (the plugin and
// everything it started that stayed in it). A SIGSTOPped process dies of
// SIGKILL too.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// killAll stops the running plugin pid and what it started: its process
// group (the plugin and the children that stayed in it), and its
// descendants that left the group (setsid) while they are still its
// descendants. The group is frozen first (SIGSTOP), so that it starts
// nothing more while its descendants are listed, then everything found
// gets SIGKILL. A program the plugin started and then left (setsid, and
// its parent exited) is no longer its descendant: nothing tells it from
// any other process, and it runs on. pid must not have been waited for
// (its id could be another process's since).
func killAll(pid int) {
	if pid <= 1 {
		return
	}
	var found processTree
	seen := map[int]bool{}
	for i := range 8 { // until a listing finds no new descendant
		if i == 1 {
			// the first listing is taken before anything is stopped: a
			// descendant listed stays found even if the plugin dies
			// meanwhile and it becomes init's
			_ = syscall.Kill(-pid, syscall.SIGSTOP)
		}
		added := false
		for _, p := range treeOf(pid) {
			if !seen[p.pid] {
				seen[p.pid], added = true, true
				_ = syscall.Kill(p.pid, syscall.SIGSTOP)
				found = append(found, p)
			}
		}
		if !added && i > 0 {
			break
		}
	}
	killGroup(pid)
	found.kill()
}

// process is a process as /proc shows it: its id and its start time, so
// that an id the kernel gave to a new process since is not taken for it.
type process struct {
	pid   int
	start string
}

// processTree is a process's descendants, as listed at one moment.
type processTree []process

// treeOf lists the descendants of pid (not pid itself) from /proc: the
// processes whose parent is pid, theirs, and so on. It is empty where
// /proc cannot be read.
func treeOf(pid int) processTree {
	if pid <= 1 { // no plugin (0), or init: never the whole machine
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]process{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, start, ok := stat(p); ok {
			children[ppid] = append(children[ppid], process{p, start})
		}
	}
	var out processTree
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// stat reads a process's parent and start time from /proc/PID/stat.
func stat(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold anything
	if i < 0 {
		return 0, "", false
	}
	// after the name: state, ppid, …, and the start time, field 22 of the line
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[19], err == nil
}

// kill sends SIGKILL to each process of t that still runs (the same
// process: its start time unchanged).
func (t processTree) kill() {
	for _, p := range t {
		if _, start, ok := stat(p.pid); ok && start == p.start {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

// fdExec reports whether a child can execute a file its parent opened
// through /proc/self/fd (a Linux without /proc cannot).
func fdExec() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
}

// fileState identifies a file and its state: a change of its content
// changes its change time (ctime), which nobody can set back.
type fileState struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

// statKey is the identity and state of the file fi describes.
func statKey(fi fs.FileInfo) (fileState, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileState{}, false
	}
	return fileState{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim, ctime: st.Ctim}, true
}

// sameStat reports whether a and b describe one file in one state.
func sameStat(a, b fs.FileInfo) bool {
	ka, okA := statKey(a)
	kb, okB := statKey(b)
	return okA && okB && ka == kb
}
