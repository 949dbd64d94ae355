// libFuzzer target: the safetensors reader (header JSON, offsets, dtypes). Any bytes give a file or
// an error; a file it accepts serializes and parses again to the same tensors.
#include "distlab/formats/safetensors.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace distlab;
    const auto parsed = parseSafeTensors(fuzz::asBytes(data, size), "fuzz.safetensors");
    if (!parsed) return 0;
    const auto bytes = serializeSafeTensors(*parsed);
    if (!bytes) return 0;  // e.g. metadata the writer refuses to emit
    const auto again = parseSafeTensors(*bytes, "written.safetensors");
    fuzz::require(again.ok(), "a file the reader accepted is not accepted once written");
    fuzz::require(again->tensors.size() == parsed->tensors.size(), "tensors lost in a round trip");
    for (const auto& [name, tensor] : parsed->tensors) {
        const auto found = again->tensors.find(name);
        fuzz::require(found != again->tensors.end() && found->second.bytes == tensor.bytes && found->second.shape == tensor.shape &&
                          found->second.dtype == tensor.dtype,
                      "a tensor changed in a round trip");
    }
    return 0;
}
