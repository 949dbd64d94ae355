#pragma once
// Pieces of Python text that DistLab's code generators share: the PyTorch export
// (pytorch_script.cpp, docs/interfaces.md §3.9) and the TensorFlow code (tensorflow_code*.cpp, docs/interfaces.md §3.10).
// Engine-internal; every function is pure.
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace distlab {

/// `value` as a Python literal (True/False/None for JSON's true/false/null), indented for reading.
std::string pythonLiteral(const nlohmann::ordered_json& value);

/// `text` as a quoted Python string literal. Names enter generated code only this way, so no name
/// (a newline in a run's name or a path) can end a comment and become code.
std::string pythonString(const std::string& text);

/// A float as a Python literal that reads back as the same double ("0.01", "1e-07", "1.0").
std::string pythonFloat(double value);

/// `pattern` with every "${KEY}" replaced by its value; generated Python is written as templates so it
/// reads as Python. A key missing from `values` is a programming error (std::logic_error).
std::string fillTemplate(std::string_view pattern, std::initializer_list<std::pair<std::string_view, std::string>> values);

/// The Python functions `read_safetensors(path)` (tensors by name as numpy arrays) and the imports they
/// need are in kReadSafeTensorsPython: the exported PyTorch script and the TensorFlow code both read
/// DistLab's safetensors files (initial weights, training data) with it, needing only numpy.
extern const char* const kReadSafeTensorsPython;

}  // namespace distlab
