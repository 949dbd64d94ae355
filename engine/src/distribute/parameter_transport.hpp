#pragma once
// The wire between parameter-server workers and the servers. A pull answers a worker's read with
// the servers' parameters at one version; a push hands the servers a worker's gradient. Each side
// touches only its own memory and the transport's: the in-process transport copies through
// per-worker slots it owns (the bytes a network would carry), a transport between processes would
// send the same bytes. So the strategy code does not change when a worker moves out of process.
//
// Ordering comes from the protocol, not from the transport: a worker has at most one pull and one
// push in flight (its permit), the servers send a pull before granting the permit and read a push
// only after the worker has queued itself in the inbox, both under the trainer's mutex.
#include <cstdint>
#include <span>
#include <vector>

namespace distlab {

class ParameterTransport {
public:
    virtual ~ParameterTransport() = default;
    /// Servers: answer worker `worker`'s read with `parameters`. Returns the bytes sent.
    virtual std::int64_t sendParameters(int worker, std::span<const float> parameters) = 0;
    /// Worker `worker`: take the answer to its read into `values` (one of its replicas' copies).
    virtual void receiveParameters(int worker, std::span<float> values) = 0;
    /// Worker `worker`: push `gradient` to the servers. Returns the bytes sent.
    virtual std::int64_t sendGradient(int worker, std::span<const float> gradient) = 0;
    /// Servers: the gradient worker `worker` pushed last; valid until its next push.
    virtual std::span<const float> receivedGradient(int worker) const = 0;
};

/// Workers and servers in one process: two slots of the parameter count per worker.
class InProcessParameterTransport final : public ParameterTransport {
public:
    InProcessParameterTransport(int workers, std::int64_t parameters);
    std::int64_t sendParameters(int worker, std::span<const float> parameters) override;
    void receiveParameters(int worker, std::span<float> values) override;
    std::int64_t sendGradient(int worker, std::span<const float> gradient) override;
    std::span<const float> receivedGradient(int worker) const override;

private:
    std::vector<std::vector<float>> m_pulled;  ///< per worker: the parameters its last read was answered with
    std::vector<std::vector<float>> m_pushed;  ///< per worker: its last gradient
};

}  // namespace distlab
