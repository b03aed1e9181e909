package dispatchkubeflow

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/faketemporal"
)

func TestRESTTrainJobsReadsUIDAndTokenAndTellsAbsent(t *testing.T) {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, `{"reason":"Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml-jobs/trainjobs/dj-x-s1":
			_, _ = w.Write([]byte(`{"kind":"TrainJob","metadata":{"name":"dj-x-s1","uid":"u-1","annotations":{"dispatch.phpboyscout.uk/attempt-token":"1-abc","other":"x"}}}`))
		case "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml-jobs/trainjobs/broken":
			http.Error(w, `{"reason":"InternalError"}`, http.StatusInternalServerError)
		default:
			http.Error(w, `{"reason":"NotFound"}`, http.StatusNotFound)
		}
	}))
	defer server.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})

	reader, err := NewRESTTrainJobs(server.URL, "secret", ca)
	if err != nil {
		t.Fatal(err)
	}
	uid, token, found, err := reader.ReadTrainJob(t.Context(), "ml-jobs", "dj-x-s1")
	if err != nil || !found || uid != "u-1" || token != "1-abc" {
		t.Errorf("present: %q %q %v %v", uid, token, found, err)
	}
	if _, _, found, err := reader.ReadTrainJob(t.Context(), "ml-jobs", "gone"); found || err != nil {
		t.Errorf("absent: %v %v", found, err)
	}
	if _, _, _, err := reader.ReadTrainJob(t.Context(), "ml-jobs", "broken"); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("a 500 is not an error: %v", err)
	}
	unauthorized, _ := NewRESTTrainJobs(server.URL, "wrong", ca)
	if _, _, _, err := unauthorized.ReadTrainJob(t.Context(), "ml-jobs", "dj-x-s1"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a 401 is not an error: %v", err)
	}
	untrusted, _ := NewRESTTrainJobs(server.URL, "secret", nil)
	if _, _, _, err := untrusted.ReadTrainJob(t.Context(), "ml-jobs", "dj-x-s1"); err == nil {
		t.Error("a server the CA does not vouch for was trusted")
	}

	// Find on it: Present with the TrainJob's ref and token.
	dk := mustNew(t, faketemporal.New(), Options{Namespace: "ml-jobs", TrainJobs: reader})
	if got, err := dk.Find(t.Context(), "01JD0Q3J0Y6Q7J7Z4W2X5V8K9M", 1); err != nil || got.State != FindAbsent {
		t.Errorf("Find: %+v %v", got, err)
	}
}
