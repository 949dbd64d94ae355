// The worker and ps tasks of a parameter-server run in processes: each serves the chief's messages
// in order until its Stop (process_parameter_transport.hpp says who sends what).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "distlab/distribute/parameter_server_cluster.hpp"
#include "distlab/model/model.hpp"
#include "distlab/optim/optimizer.hpp"
#include "distlab/tensor/reductions.hpp"
#include "distribute/process_parameter_transport.hpp"
#include "distribute/read_answers.hpp"
#include "distribute/worker_gradient.hpp"

namespace distlab {
namespace {

PsLayout layoutOf(const RunConfig& config) {
    return PsLayout{static_cast<int>(config.cluster.worker.size()), static_cast<int>(config.cluster.ps.size())};
}

/// The shards of every server: a model's layout (no values needed) split as the partitioner says.
std::vector<ShardPlacement> placementsOf(const RunConfig& config, std::int64_t features) {
    const Model model(config.model, features);
    return placeShards(model.store(), config.strategy.partitioner, static_cast<int>(config.cluster.ps.size()));
}

ParameterServerTaskResult runWorker(const RunConfig& config, int index, Communicator& group, const DataSplit& data) {
    const PsLayout layout = layoutOf(config);
    const LossFunction loss(config.model.loss);
    const auto replicasPerWorker = static_cast<int>(std::max<std::int64_t>(1, config.strategy.replicasPerWorker));
    WorkerGradient replicas(config.model, data.train.features, replicasPerWorker, config.strategy.crossDeviceOps);
    const std::span<float> values = replicas.replica(0).model.store().values();
    ProcessParameterTransport transport(group, layout, placementsOf(config, data.train.features), static_cast<std::int64_t>(values.size()));
    const std::int64_t clockOriginNs = nowNs();
    const std::vector<double>& speeds = config.strategy.workerSpeed;
    const double speed = static_cast<std::size_t>(index) < speeds.size() ? speeds[static_cast<std::size_t>(index)] : 1.0;
    std::vector<std::int64_t> batch;
    ParameterServerTaskResult result;
    for (;;) {
        const PsHeader permit = receiveHeader(group, PsLayout::kChief);
        if (permit.kind == PsMessage::Keepalive) continue;  // the chief waits for another worker
        if (permit.kind == PsMessage::Stop) {
            result.exitCode = static_cast<int>(permit.code);
            result.steps = permit.count;
            return result;
        }
        receiveIndices(group, batch, permit.count, PsLayout::kChief);
        PsHeader answer;
        std::string failure;
        try {
            transport.receiveParameters(index, values);  // the pull: every server's shards
            for (std::size_t w = 0; w < answer.watched.size(); ++w) {
                const std::int64_t element = permit.watchedIndex[w];
                answer.watched[w] =
                    element >= 0 && element < static_cast<std::int64_t>(values.size()) ? values[static_cast<std::size_t>(element)] : 0.0f;
            }
            for (int r = 1; r < replicas.replicaCount(); ++r)
                std::copy(values.begin(), values.end(), replicas.replica(r).model.store().values().begin());
            const std::int64_t computeStart = nowNs();
            const LossStats stats = replicas.compute(loss, data.train, batch, nullptr, clockOriginNs);
            // A straggler, as on threads (ParameterServerTrainer::computeGradient): a worker at
            // speed s computes 1/s times as long, so its result and push reach the chief that late.
            const double worked = static_cast<double>(nowNs() - computeStart);
            if (speed < 1.0) std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<std::int64_t>(worked / speed - worked)));
            answer.kind = PsMessage::Result;
            answer.value = stats.sum;
            answer.code = stats.correct;
            answer.examples = static_cast<std::int64_t>(batch.size());
            answer.norm = std::sqrt(sumOfSquares(replicas.gradient()));  // the norm every strategy reports (reductions.hpp)
        } catch (const TrainingError& error) {
            // A server that is gone: the chief stops the run and names it (it sees the server's
            // link close too); this worker tells it why its step cannot finish.
            failure = error.what();
        }
        if (!failure.empty()) {
            answer.kind = PsMessage::Failed;
            answer.count = static_cast<std::int64_t>(failure.size());
            sendHeader(group, answer, PsLayout::kChief);
            sendText(group, failure, PsLayout::kChief);
            continue;
        }
        sendHeader(group, answer, PsLayout::kChief);
        transport.sendGradient(index, replicas.gradient());  // the push
        ++result.gradients;
    }
}

ParameterServerTaskResult runServer(const RunConfig& config, int server, Communicator& group, std::int64_t features) {
    const PsLayout layout = layoutOf(config);
    const std::vector<ShardPlacement> placements = placementsOf(config, features);
    ProcessParameterTransport transport(group, layout, placements, 0);
    const ServerShards& own = transport.shards(server);
    // This server's elements, compact: its shards in placement order; the optimizer's slots alike.
    std::vector<float> values(static_cast<std::size_t>(own.size())), gradient(values.size());
    const std::unique_ptr<Optimizer> optimizer = makeOptimizer(config.optimizer, own.size());
    const std::size_t slots = optimizer->slotNames().size();
    ParameterServerTaskResult result;
    result.elements = own.size();
    const auto reads = std::make_unique<ReadAnswers>(transport, layout.workers);
    for (;;) {
        const PsHeader command = receiveHeader(group, PsLayout::kChief);
        switch (command.kind) {
            case PsMessage::Pull:
                reads->answer(static_cast<int>(command.worker), values);  // sent on the worker's own thread
                break;
            case PsMessage::Keepalive:
                break;
            case PsMessage::Apply: {
                group.recv(gradient, PsLayout::kChief).wait();
                // What ParameterServerTrainer's servers do for their shards, on the compact copy
                // (the slots are indexed alike): the same arithmetic, element by element.
                optimizer->beginUpdate();
                const auto rate = static_cast<float>(command.value);
                for (const ServerShards::Range& range : own.ranges()) {
                    const auto offset = static_cast<std::size_t>(range.compactOffset), size = static_cast<std::size_t>(range.size);
                    optimizer->applyRange(std::span(values).subspan(offset, size), std::span<const float>(gradient).subspan(offset, size),
                                          rate, range.compactOffset);
                }
                ++result.updates;
                break;
            }
            case PsMessage::Fetch: {
                PsHeader answer;
                answer.kind = PsMessage::Fetch;
                answer.count = optimizer->iterations();
                sendHeader(group, answer, PsLayout::kChief);
                group.send(values, PsLayout::kChief).wait();
                for (std::size_t s = 0; s < slots; ++s) group.send(optimizer->slot(s), PsLayout::kChief).wait();
                break;
            }
            case PsMessage::Load:
                group.recv(values, PsLayout::kChief).wait();
                for (std::size_t s = 0; s < slots; ++s) group.recv(optimizer->slot(s), PsLayout::kChief).wait();
                optimizer->setIterations(command.count);
                break;
            case PsMessage::Stop:
                result.exitCode = static_cast<int>(command.code);
                result.steps = command.count;
                result.reads = reads->finish();  // the answers still queued are sent (or found lost) first
                return result;
            case PsMessage::Permit:
            case PsMessage::Result:
            case PsMessage::Failed:
                throw TrainingError("ps:" + std::to_string(server) + ": the chief sent a message a server does not take");
        }
    }
}

}  // namespace

ParameterServerTaskResult runParameterServerTask(const RunConfig& config, const TaskId& task, Communicator& group, const DataSplit& data) {
    if (task.type == TaskId::Type::Ps) return runServer(config, static_cast<int>(task.index), group, data.train.features);
    return runWorker(config, static_cast<int>(task.index), group, data);
}

}  // namespace distlab
