// libFuzzer target: the reader of the telemetry a cluster's tasks stream to the app, what every
// connection to the app's telemetry port goes through before its hello is checked. Any bytes, in
// any pieces, become messages or one refusal with a reason, never a crash; a message it accepts
// encodes to a frame that reads back as the same message.
#include "distlab/telemetry/task_telemetry.hpp"
#include "fuzz_support.hpp"

namespace {

bool sameMessage(const distlab::TaskMessage& a, const distlab::TaskMessage& b) {
    // Compared through their frames: the encoding is deterministic for equal messages.
    return distlab::encodeTaskMessage(a) == distlab::encodeTaskMessage(b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace distlab;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    TaskTelemetryReader reader;
    // Bytes arrive in pieces: the first three alone, then the rest, as a slow peer sends them.
    const std::size_t split = std::min<std::size_t>(size, 3);
    reader.append(bytes.substr(0, split));
    bool appended = split == size;
    for (;;) {
        auto next = reader.next();
        if (!next) {
            fuzz::require(!next.error().message.empty(), "a refusal gives no reason");
            fuzz::require(!reader.next(), "a failed reader reads on");
            break;
        }
        if (!next->has_value()) {
            if (appended) break;
            reader.append(bytes.substr(split));
            appended = true;
            continue;
        }
        const TaskMessage& message = **next;
        TaskTelemetryReader again;
        again.append(encodeTaskMessage(message));
        auto back = again.next();
        fuzz::require(back && back->has_value(), "an accepted message does not read back");
        fuzz::require(sameMessage(**back, message), "a message does not read back as itself");
    }
    return 0;
}
