"""The Kubeflow SDK's side of the bench's `sdk` section (bench/sdk.ts): TrainerClient().train(...).

A long-lived driver run by bench/sdk.ts with the virtual environment's python. It reads one JSON
request per line on stdin and answers one JSON line on stdout:

  {"op": "train", "callers": 8, "count": 200, "runtime": "object" | "name"}
      -> {"latenciesMs": [...], "names": [...], "failures": [...], "seconds": 1.23}
  {"op": "quit"}

Callers are threads of this one process (the kubernetes client's I/O releases the GIL; the SDK's
own Python work does not), each with a TrainerClient of its own, made before the clock starts, so
that no caller waits on another's connection pool and a client's construction (it loads the
kubeconfig and reads Trainer's version ConfigMap) is not in the figures. A `train` starts every
caller at once on a barrier; each makes count/callers TrainJobs back to back.

The TrainJob is as close to a plain-mode Start's as the SDK's API comes (its settings arrive as
JSON in argv[1]): CustomTrainerContainer with the image, the env and numNodes, the command through
the TrainerCommand option, and Kueue's queue label through the Labels option so that the TrainJob
is created suspended (the SDK has no suspend of its own), as a Start's is.
"""

import json
import logging
import sys
import threading
import time

from kubeflow.common.types import KubernetesBackendConfig
from kubeflow.trainer import (
    CustomTrainerContainer,
    Runtime,
    RuntimeKind,
    RuntimeTrainer,
    TrainerClient,
    TrainerType,
)
from kubeflow.trainer.options import Labels, TrainerCommand


def main() -> None:
    settings = json.loads(sys.argv[1])
    # Each TrainerClient() reads Trainer's version ConfigMap, which the local stack has not, and
    # warns at length; the proxy counts that read all the same.
    logging.getLogger("kubeflow").setLevel(logging.ERROR)
    backend = KubernetesBackendConfig(
        namespace=settings["namespace"], config_file=settings["kubeconfig"]
    )
    # "object": a Runtime handed to train(), so it reads nothing first (ClusterTrainingRuntime
    # dispatch-kind, the Start's runtime; the SDK cannot read that one by name: it requires a
    # trainer.kubeflow.org/framework label the sample has not). "name": the runtime's name, read by
    # train() first (a TrainingRuntime copy in the namespace, with that label).
    runtimes = {
        "object": Runtime(
            name=settings["runtime"]["object"],
            kind=RuntimeKind.CLUSTER_TRAINING_RUNTIME,
            trainer=RuntimeTrainer(
                trainer_type=TrainerType.CUSTOM_TRAINER,
                framework=settings["runtime"]["framework"],
                image=settings["image"],
            ),
        ),
        "name": settings["runtime"]["name"],
    }
    job = settings["job"]

    def train(client: TrainerClient, runtime: str) -> str:
        return client.train(
            runtime=runtimes[runtime],
            trainer=CustomTrainerContainer(
                image=job["image"],
                num_nodes=job["numNodes"],
                env=job["env"],
                resources_per_node=job["resourcesPerNode"],
            ),
            options=[TrainerCommand(command=job["command"]), Labels(labels=job["labels"])],
        )

    clients: list[TrainerClient] = []
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "quit":
            return
        callers, count, runtime = request["callers"], request["count"], request["runtime"]
        while len(clients) < callers:
            clients.append(TrainerClient(backend_config=backend))
        names: list[str] = []
        latencies: list[float] = []
        failures: list[str] = []
        lock = threading.Lock()
        barrier = threading.Barrier(callers + 1)

        def caller(index: int) -> None:
            client = clients[index]
            mine = count // callers + (1 if index < count % callers else 0)
            barrier.wait()
            for _ in range(mine):
                t0 = time.perf_counter()
                try:
                    name = train(client, runtime)
                except Exception as error:  # noqa: BLE001 (reported, not raised)
                    with lock:
                        failures.append(f"{type(error).__name__}: {error}: {error.__cause__}")
                    continue
                elapsed = (time.perf_counter() - t0) * 1000
                with lock:
                    latencies.append(elapsed)
                    names.append(name)

        threads = [threading.Thread(target=caller, args=(i,)) for i in range(callers)]
        for thread in threads:
            thread.start()
        barrier.wait()
        t0 = time.perf_counter()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - t0
        answer = {"latenciesMs": latencies, "names": names, "failures": failures, "seconds": seconds}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
