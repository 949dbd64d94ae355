// libFuzzer target: the rendezvous store's wire reader, what every connection to a coordinator's
// port goes through. Any bytes split into frames (or a refusal of an over-long one) and each frame
// into a message or a reason, never a crash; a message it accepts encodes to a frame that reads back
// as the same message.
#include "comm/cluster_store_wire.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace distlab::cluster_wire;
    FrameReader reader;
    // Bytes arrive in pieces: the first byte alone, then the rest, as a slow peer sends them.
    reader.append(data, std::min<std::size_t>(size, 1));
    if (size > 1) reader.append(data + 1, size - 1);
    Bytes payload;
    for (;;) {
        const FrameReader::Status status = reader.next(payload);
        if (status == FrameReader::Status::needMore) break;
        if (status == FrameReader::Status::tooLarge) {
            distlab::fuzz::require(reader.announcedLength() > kMaxFrameBytes, "a frame within the limit was refused as too large");
            break;
        }
        std::string why;
        const std::optional<Message> message = decodeMessage(payload, why);
        distlab::fuzz::require(message.has_value() || !why.empty(), "a refused frame gives no reason");
        if (!message) continue;
        distlab::fuzz::require(stringField(*message, "op") != nullptr, "an accepted message has no string op");
        const Bytes frame = encodeFrame(*message);
        FrameReader again;
        again.append(frame.data(), frame.size());
        Bytes same;
        distlab::fuzz::require(again.next(same) == FrameReader::Status::frame, "an encoded message is not one frame");
        std::string whyAgain;
        const std::optional<Message> back = decodeMessage(same, whyAgain);
        distlab::fuzz::require(back.has_value() && *back == *message, "a message does not read back as itself");
    }
    return 0;
}
