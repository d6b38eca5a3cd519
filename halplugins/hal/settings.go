package hal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ApplySettings decodes raw (a JSON object; empty or "null" means no
// settings) strictly into the value h.Settings() returns: an unknown key or
// a wrong type is an error naming the key. Then, when that value is a
// [SettingsValidator], its Validate says whether the settings make sense
// (a value out of range): a HAL checks its settings there, before its
// Configure runs, instead of overriding Configure. A HAL that is not
// [Configurable] accepts only an empty object.
func ApplySettings(h HAL, raw []byte) error {
	if err := applySettings(h, raw); err != nil {
		return err
	}
	if c, ok := h.(Configurable); ok {
		if v, ok := c.Settings().(SettingsValidator); ok {
			return v.Validate()
		}
	}
	return nil
}

// SettingsValidator is a settings value that checks itself: ApplySettings
// calls Validate after decoding the configured settings over the
// defaults. Its error should name the setting, as
// "setting skid = 5000, want 0…1000" does.
type SettingsValidator interface {
	Validate() error
}

func applySettings(h HAL, raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	c, ok := h.(Configurable)
	if !ok {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("settings are not a JSON object: %v", err)
		}
		for k := range m {
			return fmt.Errorf("unknown setting %q: this HAL takes no settings", k)
		}
		return nil
	}
	return DecodeSettings(c.Settings(), raw)
}

// DecodeSettings decodes the JSON object raw into dst (a pointer to a
// settings struct) strictly, with errors that name the offending key.
func DecodeSettings(dst any, raw []byte) error {
	if dst == nil {
		return errors.New("settings: the HAL's Settings returned nil")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(dst); err != nil {
		return settingsError(err)
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("settings: trailing data after the settings object")
	}
	return nil
}

func settingsError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("settings: got a JSON %s, want an object (a settings table)", te.Value)
		}
		return fmt.Errorf("setting %q: got a %s, want %s", te.Field, tomlKind(te.Value), te.Type)
	}
	if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown setting %s", msg)
	}
	return fmt.Errorf("settings: %v", err)
}

func tomlKind(jsonKind string) string {
	switch jsonKind {
	case "object":
		return "table"
	case "array":
		return "array"
	}
	return jsonKind
}

// SampleSettings returns the JSON form of h's settings (its defaults on a
// fresh value), or "{}" if h is not Configurable.
func SampleSettings(h HAL) (string, error) {
	c, ok := h.(Configurable)
	if !ok || c.Settings() == nil {
		return "{}", nil
	}
	b, err := json.Marshal(c.Settings())
	if err != nil {
		return "", fmt.Errorf("settings: cannot encode the defaults: %v", err)
	}
	return string(b), nil
}
