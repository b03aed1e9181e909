package dispatchkubeflow

import "crypto/rand"

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// RandomJobID is a random canonical ULID (JobIDPattern), for examples and tests: dispatch assigns
// the real ones.
func RandomJobID() string {
	var random [26]byte
	_, _ = rand.Read(random[:])
	id := make([]byte, 26)
	id[0] = crockford[random[0]%8]
	for i := 1; i < 26; i++ {
		id[i] = crockford[random[i]%32]
	}
	return string(id)
}
