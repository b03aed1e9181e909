package dispatchkubeflow

import "regexp"

// The patterns of docs/schema (checked equal to them by schema_test.go).
const (
	// JobIDPattern is a canonical ULID: 26 Crockford base32 characters, upper case, the first 0-7.
	JobIDPattern = `^[0-7][0-9A-HJKMNP-TV-Z]{25}$`
	// NamespacePattern is a DNS-1123 label (at most 63 characters).
	NamespacePattern = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// NamePattern is a DNS-1123 subdomain (at most 253 characters).
	NamePattern = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
)

var (
	jobIDRegexp     = regexp.MustCompile(JobIDPattern)
	namespaceRegexp = regexp.MustCompile(NamespacePattern)
	nameRegexp      = regexp.MustCompile(NamePattern)
)
