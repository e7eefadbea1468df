package airtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"libair/air"
)

// Image registration against the fake workspace (tests/fakews/README.md,
// "images" and "secrets"): a private registry whose credentials come from
// a Docker configuration written here, stored credentials, the wait for
// AVAILABLE and its failures. The context cases are in context_test.go.

const (
	privateImage = "myreg.io/team/train:v3"
	userScope    = "docker-credentials-tester@databricks.com"
	regPassword  = "s3cret-Pa55word"
	regAuth      = "YWxpY2U6czNjcmV0LVBhNTV3b3Jk" // base64("alice:s3cret-Pa55word")
)

// images sets the workspace's legacy image registrations.
func (fw *fakeWS) images(t testing.TB, images map[string]interface{}) {
	fw.call(t, "POST", "/__fakews/images", map[string]interface{}{"images": images}, nil)
}

// secrets is the workspace's secret store: scope -> key -> value.
func (fw *fakeWS) secrets(t testing.TB) map[string]map[string]string {
	var out struct {
		Scopes map[string]map[string]string `json:"scopes"`
	}
	fw.call(t, "GET", "/__fakews/secrets", nil, &out)
	return out.Scopes
}

// dockerConfig writes config.json into a new directory and returns it.
func dockerConfig(t *testing.T, json string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// registerOptions read the Docker configuration of dir and poll fast.
func registerOptions(dir string) *air.RegisterImageOptions {
	return &air.RegisterImageOptions{DockerConfigDir: dir, PollInterval: 10 * time.Millisecond}
}

func TestRegisterImageAnonymous(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	reg, err := c.RegisterImage(bg, "ubuntu", registerOptions(dockerConfig(t, "{}")))
	must(t, err)
	if reg.URL != "docker.io/library/ubuntu:latest" || reg.Status != "AVAILABLE" ||
		len(reg.ManifestSHA256) != 64 || !reg.ImageUpdated || reg.Cached ||
		reg.CredentialsScope != "" || reg.CredentialsKey != "" {
		t.Fatalf("registration %+v", reg)
	}
}

func TestRegisterImagePrivateRegistry(t *testing.T) {
	fw := workspace(t)
	fw.images(t, map[string]interface{}{privateImage: map[string]interface{}{
		"registered": false, "requires_credentials": true}})
	dir := dockerConfig(t, `{"auths":{"https://myreg.io/v2/":{"auth":"`+regAuth+`"}}}`)
	var mu sync.Mutex
	var trace strings.Builder
	c := fw.client(t, func(o *air.ClientOptions) {
		o.Debug = func(_ air.DebugType, s string) {
			mu.Lock()
			trace.WriteString(s + "\n")
			mu.Unlock()
		}
	})
	reg, err := c.RegisterImage(bg, privateImage, registerOptions(dir))
	must(t, err)
	if reg.URL != privateImage || reg.Status != "AVAILABLE" || !reg.ImageUpdated || reg.Cached ||
		reg.CredentialsScope != userScope || reg.CredentialsKey != "myreg.io-alice-local" {
		t.Fatalf("registration %+v", reg)
	}
	if got := fw.secrets(t)[userScope]["myreg.io-alice-local"]; got != regAuth {
		t.Fatalf("stored secret %q", got)
	}
	mu.Lock()
	if s := trace.String(); s == "" || strings.Contains(s, regPassword) || strings.Contains(s, regAuth) {
		t.Fatalf("the trace is empty or shows the credentials:\n%s", s)
	}
	mu.Unlock()

	// The same image again: the workspace already has it.
	again, err := c.RegisterImage(bg, privateImage, registerOptions(dir))
	must(t, err)
	if again.ImageUpdated || !again.Cached || again.ManifestSHA256 != reg.ManifestSHA256 {
		t.Fatalf("second registration %+v, first %+v", again, reg)
	}
}

func TestRegisterImageStoredCredentials(t *testing.T) {
	fw := workspace(t)
	fw.call(t, "POST", "/__fakews/secrets", map[string]interface{}{
		"scopes": map[string]interface{}{"team": map[string]string{"reg": "dTpw"}}}, nil)
	fw.images(t, map[string]interface{}{privateImage: map[string]interface{}{
		"registered": false, "requires_credentials": true}})
	c := fw.client(t, nil)
	o := registerOptions(dockerConfig(t, `{"auths":{"myreg.io":{"auth":"`+regAuth+`"}}}`))
	o.CredentialsScope, o.CredentialsKey = "team", "reg"
	reg, err := c.RegisterImage(bg, privateImage, o)
	must(t, err)
	if reg.CredentialsScope != "team" || reg.CredentialsKey != "reg" {
		t.Fatalf("registration %+v", reg)
	}
	if n := fw.count(t, "POST", "/api/2.0/secrets/put"); n != 0 {
		t.Fatalf("%d secrets written", n)
	}
}

func TestRegisterImageArguments(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	_, err := c.RegisterImage(bg, privateImage, &air.RegisterImageOptions{TagPolicy: "auto"})
	if e := airErr(t, err, air.EINVAL); !strings.Contains(e.Message, "RegisterImageOptions.TagPolicy") {
		t.Fatalf("message %q", e.Message)
	}
	_, err = c.RegisterImage(bg, privateImage, &air.RegisterImageOptions{Timeout: -time.Second})
	airErr(t, err, air.EINVAL)
	_, err = c.RegisterImage(bg, privateImage, &air.RegisterImageOptions{CredentialsScope: "team"})
	if e := airErr(t, err, air.EINVAL); !strings.Contains(e.Message, "go together") {
		t.Fatalf("message %q", e.Message)
	}
	_, err = c.RegisterImage(bg, " ", nil)
	airErr(t, err, air.EINVAL)
	var out struct {
		Requests []interface{} `json:"requests"`
	}
	fw.call(t, "GET", "/__fakews/requests", nil, &out)
	if len(out.Requests) != 0 {
		t.Fatalf("%d requests made with invalid arguments", len(out.Requests))
	}
}

func TestRegisterImagePendingUntilTimeout(t *testing.T) {
	fw := workspace(t)
	fw.images(t, map[string]interface{}{privateImage: map[string]interface{}{
		"registered": false, "on_register": map[string]interface{}{"state": "PENDING"}}})
	c := fw.client(t, nil)
	o := registerOptions(dockerConfig(t, "{}"))
	o.Timeout = 100 * time.Millisecond
	_, err := c.RegisterImage(bg, privateImage, o)
	e := airErr(t, err, air.ETIMEOUT)
	if !errors.Is(err, air.ETIMEOUT) || e.Kind != air.KindTransient || !e.Retryable || !e.Temporary() {
		t.Fatalf("kind %v retryable %v: %v", e.Kind, e.Retryable, err)
	}
	if errors.Is(err, context.DeadlineExceeded) || e.Cause != nil {
		t.Fatalf("the registration's own timeout is reported as a context's: %v", err)
	}
	if !strings.Contains(e.Message, "still PENDING") || !strings.Contains(e.Message, privateImage) {
		t.Fatalf("message %q", e.Message)
	}
}

func TestRegisterImageFailed(t *testing.T) {
	fw := workspace(t)
	fw.images(t, map[string]interface{}{privateImage: map[string]interface{}{
		"registered": false, "on_register": map[string]interface{}{"state": "IMPORTING",
			"states": []interface{}{map[string]interface{}{"state": "FAILED", "status_message": "manifest unknown"}}}}})
	c := fw.client(t, nil)
	_, err := c.RegisterImage(bg, privateImage, registerOptions(dockerConfig(t, "{}")))
	e := airErr(t, err, air.EAPI)
	if e.Kind != air.KindPermanent || e.Retryable || !strings.Contains(e.Message, "manifest unknown") {
		t.Fatalf("kind %v retryable %v: %v", e.Kind, e.Retryable, err)
	}
}
