// Package dispatchkubeflow is the typed Go client of dispatch-kubeflow: it starts the worker's
// Temporal workflows (StartTrainJob, the operations after Start, the capabilities query and the
// backend probe) exactly as the TypeScript client does (the same workflow ids, id policies, task
// queue, static summaries and search attributes), reads their JSON results into typed values
// (tolerantly: a field a newer worker adds is ignored), decodes their failures into *Error, and
// encrypts payloads as the worker's codec does.
//
//	import dk "github.com/phpboyscout/dispatch-kubeflow/go/dispatchkubeflow"
//
// Dial Temporal with Dial (client.Dial that gives the codec to the failure converter too), make a
// Client with New for the worker's Kubernetes namespace, and call Start, Open, Hold, Release,
// Stop, Watch, Find, Capabilities or Probe; each has an Example. StartRequest.Validate names every
// problem of a request with the worker's reasons. A failure is an *Error, matched with errors.Is
// (its ErrorType) and errors.As however it is wrapped or joined; a wait whose context ends answers
// an error that is context.Canceled or context.DeadlineExceeded.
//
// The contract it follows is docs/contract.md of the repository; the TypeScript zod schemas in
// src/model are the one source of every shape, and the tests of this module check the Go types
// against the JSON Schemas exported from them (docs/schema).
package dispatchkubeflow
