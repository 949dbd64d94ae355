#pragma once
// The rendezvous store's wire format, shared by its server and client (docs/cluster.md,
// "Rendezvous store"): each message is one CBOR document (nlohmann::json's CBOR, values as CBOR
// byte strings), framed by its length as 4 bytes, big-endian. A frame over kMaxFrameBytes is
// refused from its length alone, before any of it is read.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace distlab::cluster_wire {

/// One message: a CBOR map with a string "op" and the op's fields.
using Message = nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

inline constexpr std::uint32_t kMaxFrameBytes = 1U << 20;
inline constexpr int kProtocolVersion = 1;
inline constexpr std::size_t kLengthBytes = 4;
/// How deep a message may nest (the deepest, wait's key list, is 2): CBOR's decoder recurses, so
/// a frame of nested arrays must be refused before it reaches the stack's end.
inline constexpr int kMaxDepth = 4;

/// The message as one frame: length, then its CBOR. Throws std::length_error over kMaxFrameBytes.
Bytes encodeFrame(const Message& message);
/// One frame's payload as a message, or nullopt with `why` set (not CBOR, trailing bytes, nested
/// deeper than kMaxDepth, not a map with a string "op").
std::optional<Message> decodeMessage(std::span<const std::uint8_t> payload, std::string& why);

/// The string field `name` of a message, or nullptr when it is missing or not a string.
const std::string* stringField(const Message& message, const char* name);

/// Splits a byte stream into frames, as bytes arrive.
class FrameReader {
public:
    enum class Status { needMore, frame, tooLarge };

    void append(const std::uint8_t* data, std::size_t size) { m_buffer.insert(m_buffer.end(), data, data + size); }
    /// Moves the next complete frame's payload into `payload` (frame), or says that more bytes
    /// are needed (needMore), or that the next frame announces more than kMaxFrameBytes
    /// (tooLarge; its length is in announcedLength()).
    Status next(Bytes& payload);
    /// Bytes of an incomplete frame are waiting.
    bool midFrame() const { return !m_buffer.empty(); }
    std::uint32_t announcedLength() const;

private:
    Bytes m_buffer;
};

}  // namespace distlab::cluster_wire
