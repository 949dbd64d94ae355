#include "comm/cluster_store_wire.hpp"

#include <stdexcept>

namespace distlab::cluster_wire {

namespace {

/// nlohmann's DOM builder with a depth limit: returning false from start_object/start_array stops
/// the CBOR reader before it recurses further.
class DepthLimitedBuilder {
public:
    explicit DepthLimitedBuilder(Message& result) : m_builder(result, false) {}

    bool null() { return m_builder.null(); }
    bool boolean(bool value) { return m_builder.boolean(value); }
    bool number_integer(Message::number_integer_t value) { return m_builder.number_integer(value); }
    bool number_unsigned(Message::number_unsigned_t value) { return m_builder.number_unsigned(value); }
    bool number_float(Message::number_float_t value, const std::string& text) { return m_builder.number_float(value, text); }
    bool string(std::string& value) { return m_builder.string(value); }
    bool binary(Message::binary_t& value) { return m_builder.binary(value); }
    bool start_object(std::size_t size) { return enter() && m_builder.start_object(size); }
    bool key(std::string& value) { return m_builder.key(value); }
    bool end_object() {
        --m_depth;
        return m_builder.end_object();
    }
    bool start_array(std::size_t size) { return enter() && m_builder.start_array(size); }
    bool end_array() {
        --m_depth;
        return m_builder.end_array();
    }
    bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& error) {
        m_error = error.what();
        return m_builder.parse_error(position, token, error);
    }

    bool tooDeep() const { return m_tooDeep; }
    const std::string& error() const { return m_error; }

private:
    bool enter() {
        if (++m_depth > kMaxDepth) m_tooDeep = true;
        return !m_tooDeep;
    }

    nlohmann::detail::json_sax_dom_parser<Message> m_builder;
    int m_depth = 0;
    bool m_tooDeep = false;
    std::string m_error;
};

}  // namespace

Bytes encodeFrame(const Message& message) {
    Bytes frame(kLengthBytes);
    Message::to_cbor(message, frame);
    const std::size_t length = frame.size() - kLengthBytes;
    if (length > kMaxFrameBytes)
        throw std::length_error("a rendezvous store message of " + std::to_string(length) + " bytes is over 1 MiB");
    for (std::size_t i = 0; i < kLengthBytes; ++i) frame[i] = static_cast<std::uint8_t>(length >> (8 * (kLengthBytes - 1 - i)));
    return frame;
}

std::optional<Message> decodeMessage(std::span<const std::uint8_t> payload, std::string& why) {
    Message message;
    DepthLimitedBuilder builder(message);
    // Strict: the frame must hold exactly one document. Garbage is a value here: the parser reports
    // syntax errors through the builder, but the DOM builder itself throws for an array or map that
    // announces more elements than a container can hold (found by fuzz_cluster_wire; the server
    // then answered "internal error" instead of refusing the frame as not CBOR).
    bool parsed = false;
    try {
        parsed = Message::sax_parse(payload.begin(), payload.end(), &builder, nlohmann::detail::input_format_t::cbor, true);
    } catch (const nlohmann::json::exception& error) {
        why = std::string("not a CBOR message (") + error.what() + ")";
        return std::nullopt;
    }
    if (builder.tooDeep()) {
        why = "the message nests deeper than " + std::to_string(kMaxDepth) + " levels";
        return std::nullopt;
    }
    if (!parsed || message.is_discarded()) {
        why = "not a CBOR message (" + (builder.error().empty() ? std::string("unreadable") : builder.error()) + ")";
        return std::nullopt;
    }
    if (!message.is_object() || stringField(message, "op") == nullptr) {
        why = "the message is not a map with a string 'op'";
        return std::nullopt;
    }
    return message;
}

const std::string* stringField(const Message& message, const char* name) {
    if (!message.is_object()) return nullptr;
    const auto found = message.find(name);
    if (found == message.end() || !found->is_string()) return nullptr;
    return found->get_ptr<const std::string*>();
}

std::uint32_t FrameReader::announcedLength() const {
    std::uint32_t length = 0;
    for (std::size_t i = 0; i < kLengthBytes && i < m_buffer.size(); ++i) length = (length << 8) | m_buffer[i];
    return length;
}

FrameReader::Status FrameReader::next(Bytes& payload) {
    if (m_buffer.size() < kLengthBytes) return Status::needMore;
    const std::uint32_t length = announcedLength();
    if (length > kMaxFrameBytes) return Status::tooLarge;
    if (m_buffer.size() < kLengthBytes + length) return Status::needMore;
    const auto begin = m_buffer.begin() + static_cast<std::ptrdiff_t>(kLengthBytes);
    const auto end = begin + static_cast<std::ptrdiff_t>(length);
    payload.assign(begin, end);
    m_buffer.erase(m_buffer.begin(), end);
    return Status::frame;
}

}  // namespace distlab::cluster_wire
