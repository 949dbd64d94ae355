#include "train_files.hpp"

#include "distlab/files/atomic_file.hpp"

namespace distlab::cli {
namespace {

const std::string& openedPath(const InputName& input) { return input.resolved.empty() ? input.path : input.resolved; }

bool allowedOverlap(const OutputFile& output, const InputName& input) {
    return output.option == "--checkpoint" && input.field == "--resume";
}

}  // namespace

Status checkTrainFiles(const std::vector<InputName>& inputs, const std::vector<OutputFile>& outputs) {
    std::vector<const OutputFile*> given;
    for (const OutputFile& output : outputs)
        if (!output.path.empty()) given.push_back(&output);
    for (std::size_t i = 0; i < given.size(); ++i) {
        const OutputFile& output = *given[i];
        for (std::size_t j = 0; j < i; ++j)
            if (sameFile(given[j]->path, output.path))
                return Error{given[j]->option + " and " + output.option + " name the same file \"" + output.path +
                             "\"; give each output its own file"};
        for (const InputName& input : inputs)
            if (!allowedOverlap(output, input) && sameFile(openedPath(input), output.path))
                return Error{output.option + ": \"" + output.path + "\" is the same file as " + input.field + " (\"" + input.path +
                             "\"); an output must not overwrite an input"};
        if (Status writable = checkOutputPath(output.option, output.path); !writable) return writable;
    }
    return Ok{};
}

}  // namespace distlab::cli
