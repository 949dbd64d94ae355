#include "distlab/comm/communicator.hpp"

#include <stdexcept>
#include <string>

namespace distlab {

template <typename Call>
Work Communicator::through32(BufferView buffer, Call call) {
    const auto count = static_cast<std::size_t>(buffer.count);
    if (m_wide.size() < count) m_wide.resize(count);
    const std::span<float> wide(m_wide.data(), count);
    widen16(buffer.dtype, buffer.as16().data(), wide.data(), count);
    const CollectiveTiming timing = call(wide).wait();
    narrow16(buffer.dtype, wide.data(), buffer.as16().data(), count);
    return timing;
}

Work Communicator::allReduce(BufferView buffer, const AllReduceOptions& options) {
    switch (buffer.dtype) {
        case DType::Float32:
            return allReduce(buffer.asFloat32(), options);
        case DType::Float16:
        case DType::BFloat16:
            return through32(buffer, [&](std::span<float> wide) { return allReduce(wide, options); });
        case DType::Int32:
            break;
    }
    throw std::invalid_argument("allReduce: " + std::string(dtypeName(buffer.dtype)) +
                                " buffers are not reduced (gradients are float32, float16 or bfloat16)");
}

Work Communicator::broadcast(BufferView buffer, int root) {
    switch (buffer.dtype) {
        case DType::Float32:
            return broadcast(buffer.asFloat32(), root);
        case DType::Int32: {
            // Copies move bits without arithmetic, so an int32 travels as a float32 of the same bits.
            const std::span<float> bits(static_cast<float*>(buffer.data), static_cast<std::size_t>(buffer.count));
            return broadcast(bits, root).wait();
        }
        case DType::Float16:
        case DType::BFloat16:
            return through32(buffer, [&](std::span<float> wide) { return broadcast(wide, root); });
    }
    throw std::invalid_argument("broadcast: unknown element type");
}

}  // namespace distlab
