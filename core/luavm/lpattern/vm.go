package lpattern

// CheckEvery is how many steps of the matcher (instructions, each at
// most one pass over the subject) pass between two calls of Find's stop
// function: some 10 to 100 microseconds of matching.
const CheckEvery = 1 << 12

// vm is one Find's matcher: its step count and stop function.
type vm struct {
	steps int
	stop  func() error
}

// stopped is the panic that unwinds the matcher when stop says to.
type stopped struct{ err error }

// check calls stop, every CheckEvery steps (the matcher counts them
// inline), and unwinds the matcher when it says to.
func (v *vm) check() {
	if v.stop == nil {
		return
	}
	if err := v.stop(); err != nil {
		panic(stopped{err})
	}
}

/* VM {{{ */

// Simple recursive virtual machine based on the
// "Regular Expression Matching: the Virtual Machine Approach" (https://swtch.com/~rsc/regexp/regexp2.html)
func (v *vm) recursiveVM(src []byte, insts []inst, pc, sp, recLevel int, ms ...*MatchData) (bool, int, *MatchData) {
	recLevel++
	if recLevel > maxRecursionLevel {
		panic(newError(_UNKNOWN, "pattern/input too complex"))
	}
	var m *MatchData
	if len(ms) == 0 {
		m = newMatchState()
	} else {
		m = ms[0]
	}
redo:
	if v.steps++; v.steps&(CheckEvery-1) == 0 {
		v.check()
	}
	inst := insts[pc]
	switch inst.OpCode {
	case opChar:
		if sp >= len(src) || !inst.Class.Matches(int(src[sp])) {
			return false, sp, m
		}
		pc++
		sp++
		goto redo
	case opMatch:
		return true, sp, m
	case opTailMatch:
		return sp >= len(src), sp, m
	case opJmp:
		pc = inst.Operand1
		goto redo
	case opSplit:
		if ok, nsp, _ := v.recursiveVM(src, insts, inst.Operand1, sp, recLevel, m); ok {
			return true, nsp, m
		}
		pc = inst.Operand2
		goto redo
	case opSave:
		s := m.setCapture(inst.Operand1, sp)
		if ok, nsp, _ := v.recursiveVM(src, insts, pc+1, sp, recLevel, m); ok {
			return true, nsp, m
		}
		m.restoreCapture(inst.Operand1, s)
		return false, sp, m
	case opPSave:
		m.addPosCapture(inst.Operand1, sp+1)
		pc++
		goto redo
	case opBrace:
		if sp >= len(src) || int(src[sp]) != inst.Operand1 {
			return false, sp, m
		}
		count := 1
		for sp = sp + 1; sp < len(src); sp++ {
			if int(src[sp]) == inst.Operand2 {
				count--
			}
			if count == 0 {
				pc++
				sp++
				goto redo
			}
			if int(src[sp]) == inst.Operand1 {
				count++
			}
		}
		return false, sp, m
	case opNumber:
		idx := inst.Operand1 * 2
		if idx >= m.CaptureLength()-1 {
			panic(newError(_UNKNOWN, "invalid capture index"))
		}
		capture := src[m.Capture(idx):m.Capture(idx+1)]
		for i := 0; i < len(capture); i++ {
			if i+sp >= len(src) || capture[i] != src[i+sp] {
				return false, sp, m
			}
		}
		pc++
		sp += len(capture)
		goto redo
	}
	panic("should not reach here")
}

/* }}} */

/* API {{{ */

// Find finds the matches of pattern p in src from byte offset on, at
// most limit of them (-1: all), as gopher-lua's pm.Find does; stop (nil:
// none) is called every CheckEvery steps of the matcher, and a non-nil
// error from it ends the search with that error.
func Find(p string, src []byte, offset, limit int, stop func() error) (matches []*MatchData, err error) {
	defer func() {
		if v := recover(); v != nil {
			switch e := v.(type) {
			case *Error:
				err = e
			case stopped:
				matches, err = nil, e.err
			default:
				panic(v)
			}
		}
	}()
	pat := parsePattern(newScanner([]byte(p)), true)
	insts := compilePattern(pat)
	v := &vm{stop: stop}
	matches = []*MatchData{}
	for sp := offset; sp <= len(src); {
		ok, nsp, ms := v.recursiveVM(src, insts, 0, sp, 0)
		sp++
		if ok {
			if sp < nsp {
				sp = nsp
			}
			matches = append(matches, ms)
		}
		if len(matches) == limit || pat.MustHead {
			break
		}
	}
	return
}

/* }}} */
