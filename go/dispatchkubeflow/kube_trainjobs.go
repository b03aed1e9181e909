package dispatchkubeflow

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// RESTTrainJobs is a TrainJobReader on the Kubernetes API itself (a GET of the TrainJob with a
// bearer token), for callers without a Kubernetes client of their own; any other client works as
// well through TrainJobReader.
type RESTTrainJobs struct {
	// Server is the API server's URL (https://host:port).
	Server string
	Token  string
	HTTP   *http.Client
}

// NewRESTTrainJobs reads TrainJobs from server with a bearer token, trusting caPEM (nil: the
// system's roots).
func NewRESTTrainJobs(server, token string, caPEM []byte) (*RESTTrainJobs, error) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if caPEM != nil {
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(caPEM) {
			return nil, errors.New("dispatchkubeflow: the CA holds no PEM certificate")
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	return &RESTTrainJobs{Server: strings.TrimSuffix(server, "/"), Token: token, HTTP: &http.Client{Transport: transport, Timeout: 30 * time.Second}}, nil
}

// The service account's files in a pod.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InClusterTrainJobs reads TrainJobs with the pod's service account.
func InClusterTrainJobs() (*RESTTrainJobs, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errors.New("dispatchkubeflow: not in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT unset)")
	}
	token, err := os.ReadFile(serviceAccountDir + "/token")
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(serviceAccountDir + "/ca.crt")
	if err != nil {
		return nil, err
	}
	return NewRESTTrainJobs("https://"+net.JoinHostPort(host, port), strings.TrimSpace(string(token)), ca)
}

// ReadTrainJob is TrainJobReader's: the TrainJob's UID and attempt token, found false on 404.
func (r *RESTTrainJobs) ReadTrainJob(ctx context.Context, namespace, name string) (string, string, bool, error) {
	address := fmt.Sprintf("%s/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs/%s", r.Server, url.PathEscape(namespace), url.PathEscape(name))
	request, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return "", "", false, err
	}
	request.Header.Set("Accept", "application/json")
	if r.Token != "" {
		request.Header.Set("Authorization", "Bearer "+r.Token)
	}
	response, err := r.HTTP.Do(request)
	if err != nil {
		return "", "", false, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(io.LimitReader(response.Body, 8<<20))
	if err != nil {
		return "", "", false, err
	}
	switch response.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return "", "", false, nil
	default:
		return "", "", false, fmt.Errorf("dispatchkubeflow: reading TrainJob %s/%s: HTTP %s: %s", namespace, name, response.Status, strings.TrimSpace(string(body)))
	}
	var object struct {
		Metadata struct {
			UID         string            `json:"uid"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &object); err != nil {
		return "", "", false, fmt.Errorf("dispatchkubeflow: reading TrainJob %s/%s: %w", namespace, name, err)
	}
	return object.Metadata.UID, object.Metadata.Annotations[AttemptTokenAnnotation], true, nil
}
