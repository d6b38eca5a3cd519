package luavm

import (
	"fmt"

	"github.com/yuin/gopher-lua/ast"
)

// The pass over a chunk's syntax tree between parsing and compiling.
//
// It bounds the tree's depth: gopher-lua's compiler recurses once per
// level and takes time quadratic in the depth, so 10^6 nested tables, a
// chain of 10^6 field accesses or a 16 MiB sum crashed the process (Go's
// fatal "stack overflow", which no recover catches) and 30,000 nested
// blocks took 10 s to compile. Parsing itself keeps its own stack and is
// linear. A chunk deeper than maxSyntaxDepth is refused, as Lua 5.1
// refuses more than 200 nested levels ("chunk has too many syntax
// levels"); every node counts, so that the bound is the compiler's depth:
// a block, a function, a table constructor, an operator's operands, an
// elseif branch.
//
// It also replaces each chain of string concatenations (a .. b .. c) by a
// call of the sandbox's concatenation (concat.go), which checks the
// result's size against the memory budget before building it: the
// interpreter's OP_CONCAT has no hook, and s = s .. s doubled a string
// past any budget between two samples of the heap watchdog.

// maxSyntaxDepth is the deepest a chunk's syntax tree may nest.
const maxSyntaxDepth = 1000

// syntaxPass walks one chunk's tree.
type syntaxPass struct {
	chunk string
	err   error // the first depth refused
}

// checkSyntax bounds the depth of chunk's tree and rewrites its string
// concatenations in place.
func checkSyntax(chunk string, stmts []ast.Stmt) error {
	p := &syntaxPass{chunk: chunk}
	p.block(stmts, 1)
	return p.err
}

// enter reports whether the node at line, depth levels deep, is to be
// walked: it records the first node too deep.
func (p *syntaxPass) enter(line, depth int) bool {
	if p.err != nil {
		return false
	}
	if depth > maxSyntaxDepth {
		p.err = fmt.Errorf("%s:%d: chunk has too many syntax levels: blocks, brackets and operators nest more than %d deep here (Lua 5.1 allows 200); split the expression or the nesting", p.chunk, line, maxSyntaxDepth)
		return false
	}
	return true
}

func (p *syntaxPass) block(stmts []ast.Stmt, depth int) {
	for _, st := range stmts {
		p.stmt(st, depth)
	}
}

func (p *syntaxPass) exprs(list []ast.Expr, depth int) {
	for i := range list {
		p.expr(&list[i], depth)
	}
}

func (p *syntaxPass) stmt(st ast.Stmt, depth int) {
	if !p.enter(st.Line(), depth) {
		return
	}
	d := depth + 1
	switch s := st.(type) {
	case *ast.AssignStmt:
		p.exprs(s.Lhs, d)
		p.exprs(s.Rhs, d)
	case *ast.LocalAssignStmt:
		p.exprs(s.Exprs, d)
	case *ast.FuncCallStmt:
		p.expr(&s.Expr, d)
	case *ast.DoBlockStmt:
		p.block(s.Stmts, d)
	case *ast.WhileStmt:
		p.expr(&s.Condition, d)
		p.block(s.Stmts, d)
	case *ast.RepeatStmt:
		p.block(s.Stmts, d)
		p.expr(&s.Condition, d)
	case *ast.IfStmt:
		p.expr(&s.Condition, d)
		p.block(s.Then, d)
		p.block(s.Else, d)
	case *ast.NumberForStmt:
		p.expr(&s.Init, d)
		p.expr(&s.Limit, d)
		p.expr(&s.Step, d)
		p.block(s.Stmts, d)
	case *ast.GenericForStmt:
		p.exprs(s.Exprs, d)
		p.block(s.Stmts, d)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			p.expr(&s.Name.Func, d)
			p.expr(&s.Name.Receiver, d)
		}
		if s.Func != nil {
			p.block(s.Func.Stmts, d+1)
		}
	case *ast.ReturnStmt:
		p.exprs(s.Exprs, d)
	}
}

// expr walks the expression *e (nil: none), replacing a concatenation.
func (p *syntaxPass) expr(e *ast.Expr, depth int) {
	if *e == nil || !p.enter((*e).Line(), depth) {
		return
	}
	d := depth + 1
	switch x := (*e).(type) {
	case *ast.AttrGetExpr:
		p.expr(&x.Object, d)
		p.expr(&x.Key, d)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			p.expr(&f.Key, d)
			p.expr(&f.Value, d)
		}
	case *ast.FuncCallExpr:
		p.expr(&x.Func, d)
		p.expr(&x.Receiver, d)
		p.exprs(x.Args, d)
	case *ast.LogicalOpExpr:
		p.expr(&x.Lhs, d)
		p.expr(&x.Rhs, d)
	case *ast.RelationalOpExpr:
		p.expr(&x.Lhs, d)
		p.expr(&x.Rhs, d)
	case *ast.ArithmeticOpExpr:
		p.expr(&x.Lhs, d)
		p.expr(&x.Rhs, d)
	case *ast.UnaryMinusOpExpr:
		p.expr(&x.Expr, d)
	case *ast.UnaryNotOpExpr:
		p.expr(&x.Expr, d)
	case *ast.UnaryLenOpExpr:
		p.expr(&x.Expr, d)
	case *ast.FunctionExpr:
		p.block(x.Stmts, d)
	case *ast.StringConcatOpExpr:
		call := concatCall(x)
		*e = call
		p.exprs(call.Args, d)
	}
}

// concatCall is the call of the sandbox's concatenation that replaces a
// chain a .. b .. c (right-associative: the compiler makes one OP_CONCAT
// of the operands along the right-hand sides, as this one call does).
// Each operand that is a call or ... gives its first value only, as an
// operand of .. does (the last argument of a call would give them all).
func concatCall(x *ast.StringConcatOpExpr) *ast.FuncCallExpr {
	var args []ast.Expr
	var cur ast.Expr = x
	for {
		c, ok := cur.(*ast.StringConcatOpExpr)
		if !ok {
			args = append(args, cur)
			break
		}
		args = append(args, c.Lhs)
		cur = c.Rhs
	}
	for _, a := range args {
		switch v := a.(type) {
		case *ast.FuncCallExpr:
			v.AdjustRet = true
		case *ast.Comma3Expr:
			v.AdjustRet = true
		}
	}
	fn := &ast.StringExpr{Value: concatMarker}
	fn.SetLine(x.Line())
	fn.SetLastLine(x.LastLine())
	call := &ast.FuncCallExpr{Func: fn, Args: args, AdjustRet: true}
	call.SetLine(x.Line())
	call.SetLastLine(x.LastLine())
	return call
}
