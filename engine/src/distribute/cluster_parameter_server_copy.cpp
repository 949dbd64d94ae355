// The chief's copy of a parameter-server run in processes (cluster_parameter_server_trainer.hpp):
// read from the servers when weights, a backup or an evaluation need it, written to them after a
// load or a resume. The servers hold the variables and slots in compact shards (ServerShards).
#include "distlab/core/error.hpp"
#include "distribute/cluster_parameter_server_trainer.hpp"
#include "distribute/model_evaluation.hpp"

namespace distlab {

void ClusterParameterServerTrainer::fetch() {
    if (m_fetchedVersion == m_version) return;
    try {
        fetchFromServers();
    } catch (const TrainingError&) {
        m_failed = true;  // a lost server: the run cannot go on (the tasks get Stop with exit code 3)
        throw;
    }
    m_fetchedVersion = m_version;
}

void ClusterParameterServerTrainer::fetchFromServers() {
    PsHeader request;
    request.kind = PsMessage::Fetch;
    std::vector<float> compact;
    const std::size_t slots = m_optimizer->slotNames().size();
    for (int server = 0; server < m_layout.servers; ++server) {
        const int rank = m_layout.serverRank(server);
        const ServerShards& shards = m_transport->shards(server);
        compact.resize(static_cast<std::size_t>(shards.size()));
        sendHeader(*m_group, request, rank);
        const PsHeader answer = receiveHeader(*m_group, rank);
        m_group->recv(compact, rank).wait();
        shards.scatter(compact, m_model->store().values());
        for (std::size_t s = 0; s < slots; ++s) {
            m_group->recv(compact, rank).wait();
            shards.scatter(compact, m_optimizer->slot(s));
        }
        m_optimizer->setIterations(answer.count);
    }
}

Model& ClusterParameterServerTrainer::primaryModel() {
    fetch();
    return *m_model;
}

Optimizer& ClusterParameterServerTrainer::replicaOptimizer(int) {
    fetch();
    return *m_optimizer;
}

void ClusterParameterServerTrainer::broadcastParameters() {
    PsHeader load;
    load.kind = PsMessage::Load;
    load.count = m_optimizer->iterations();
    std::vector<float> compact;
    const std::size_t slots = m_optimizer->slotNames().size();
    for (int server = 0; server < m_layout.servers; ++server) {
        const int rank = m_layout.serverRank(server);
        const ServerShards& shards = m_transport->shards(server);
        compact.resize(static_cast<std::size_t>(shards.size()));
        sendHeader(*m_group, load, rank);
        shards.gather(m_model->store().values(), compact);
        m_group->send(compact, rank).wait();
        for (std::size_t s = 0; s < slots; ++s) {
            shards.gather(m_optimizer->slot(s), compact);
            m_group->send(compact, rank).wait();
        }
    }
}

void ClusterParameterServerTrainer::restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) {
    std::lock_guard lock(m_mutex);
    m_version = stepsDone;
    m_fetchedVersion = stepsDone;  // the chief's copy is what it loaded into the servers
    m_sampler.restore(epoch, cursor);
}

EvalResult ClusterParameterServerTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    // After a lost server the servers cannot be read: the chief's last copy is evaluated.
    if (!m_failed) fetch();
    return evaluateModel(*m_model, LossFunction(m_config.model.loss), data, maxExamples, *m_evaluation);
}

const Tensor& ClusterParameterServerTrainer::predict(const Tensor& input) {
    fetch();
    return m_model->forward(input, m_evaluation->context);
}

}  // namespace distlab
