// Matching a safetensors file against what a model needs: names, dtypes and shapes.
#include <set>

#include "distlab/formats/safetensors.hpp"

namespace distlab {

Result<const SafeTensor*> findSafeTensor(const SafeTensorsFile& file, const std::string& name, SafeDType dtype, const Shape& expectedShape,
                                         const std::string& fileName) {
    const auto found = file.tensors.find(name);
    if (found == file.tensors.end()) return Error{fileName + ": missing tensor " + name};
    const SafeTensor& tensor = found->second;
    if (tensor.dtype != dtype) {
        return Error{fileName + ": " + name + ": dtype " + std::string(safeDTypeName(tensor.dtype)) + " in the file, the model needs " +
                     std::string(safeDTypeName(dtype))};
    }
    if (tensor.shape != expectedShape) {
        return Error{fileName + ": " + name + ": shape " + shapeToString(tensor.shape) + " in the file, the model needs " +
                     shapeToString(expectedShape)};
    }
    return &tensor;
}

Result<std::vector<float>> readF32Tensor(const SafeTensorsFile& file, const std::string& name, const Shape& expectedShape,
                                         const std::string& fileName) {
    const auto found = findSafeTensor(file, name, SafeDType::F32, expectedShape, fileName);
    if (!found) return found.error();
    std::vector<float> values((*found)->bytes.size() / sizeof(float));
    if (!values.empty()) std::memcpy(values.data(), (*found)->bytes.data(), (*found)->bytes.size());
    return values;
}

Status checkTensorsMatch(const SafeTensorsFile& file, std::span<const ExpectedTensor> expected, const std::string& fileName,
                         std::string_view ignorePrefix) {
    std::set<std::string_view> wanted;
    for (const ExpectedTensor& tensor : expected) {
        const auto found = findSafeTensor(file, tensor.name, SafeDType::F32, tensor.shape, fileName);
        if (!found) return found.error();
        wanted.insert(tensor.name);
    }
    for (const auto& [name, tensor] : file.tensors) {
        const bool ignored = !ignorePrefix.empty() && std::string_view(name).starts_with(ignorePrefix);
        if (!ignored && !wanted.contains(name)) return Error{fileName + ": unexpected tensor " + name};
    }
    return Ok{};
}

}  // namespace distlab
