// Package dispatchkubeflow is the typed Go client of dispatch-kubeflow: it starts the worker's
// Temporal workflows (StartTrainJob, the operations after Start, the capabilities query and the
// backend probe) exactly as the TypeScript client does (the same workflow ids, id policies, task
// queue, static summaries and search attributes), reads their JSON results into typed values,
// decodes their failures into *Error, and encrypts payloads as the worker's codec does.
//
// The contract it follows is docs/contract.md of the repository; the TypeScript zod schemas in
// src/model are the one source of every shape, and the tests of this module check the Go types
// against the JSON Schemas exported from them (docs/schema).
package dispatchkubeflow
