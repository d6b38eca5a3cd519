package halrpc

import (
	"context"
	"io"
	"log"
	"log/slog"

	hclog "github.com/hashicorp/go-hclog"
)

// slogLogger adapts a *slog.Logger to hclog.Logger, the logger go-plugin
// uses for the plugin's stderr lines and its own messages.
type slogLogger struct {
	l     *slog.Logger
	name  string
	args  []any
	level hclog.Level
	// stderr marks the logger go-plugin names after the plugin for the
	// lines the plugin writes to stderr (Named).
	stderr bool
}

var _ hclog.Logger = (*slogLogger)(nil)

func newSlogLogger(l *slog.Logger, name string) *slogLogger {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return &slogLogger{l: l, name: name, level: hclog.Debug}
}

func toSlogLevel(level hclog.Level) slog.Level {
	switch level {
	case hclog.Trace, hclog.Debug:
		return slog.LevelDebug
	case hclog.Warn:
		return slog.LevelWarn
	case hclog.Error:
		return slog.LevelError
	}
	return slog.LevelInfo
}

func (s *slogLogger) Log(level hclog.Level, msg string, args ...any) {
	if level == hclog.Off || level < s.level {
		return
	}
	if s.stderr && level < hclog.Info {
		// go-plugin logs a plugin's plain stderr lines at Debug: they
		// are the plugin's own words, for the run log
		level = hclog.Info
	}
	all := make([]any, 0, len(s.args)+len(args)+2)
	if s.name != "" {
		all = append(all, "logger", s.name)
	}
	all = append(all, s.args...)
	all = append(all, args...)
	s.l.Log(context.Background(), toSlogLevel(level), msg, all...)
}

func (s *slogLogger) Trace(msg string, args ...any) { s.Log(hclog.Trace, msg, args...) }
func (s *slogLogger) Debug(msg string, args ...any) { s.Log(hclog.Debug, msg, args...) }
func (s *slogLogger) Info(msg string, args ...any)  { s.Log(hclog.Info, msg, args...) }
func (s *slogLogger) Warn(msg string, args ...any)  { s.Log(hclog.Warn, msg, args...) }
func (s *slogLogger) Error(msg string, args ...any) { s.Log(hclog.Error, msg, args...) }
func (s *slogLogger) IsTrace() bool                 { return s.level <= hclog.Trace }
func (s *slogLogger) IsDebug() bool                 { return s.level <= hclog.Debug }
func (s *slogLogger) IsInfo() bool                  { return s.level <= hclog.Info }
func (s *slogLogger) IsWarn() bool                  { return s.level <= hclog.Warn }
func (s *slogLogger) IsError() bool                 { return s.level <= hclog.Error }
func (s *slogLogger) ImpliedArgs() []any            { return s.args }
func (s *slogLogger) Name() string                  { return s.name }
func (s *slogLogger) SetLevel(level hclog.Level)    { s.level = level }
func (s *slogLogger) GetLevel() hclog.Level         { return s.level }

func (s *slogLogger) With(args ...any) hclog.Logger {
	c := *s
	c.args = append(append([]any(nil), s.args...), args...)
	return &c
}

func (s *slogLogger) Named(name string) hclog.Logger {
	c := *s
	c.stderr = true
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	return &c
}

func (s *slogLogger) ResetNamed(name string) hclog.Logger {
	c := *s
	c.name = name
	return &c
}

func (s *slogLogger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(s.StandardWriter(opts), "", 0)
}

func (s *slogLogger) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		s.Info(string(trimNewline(p)))
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
