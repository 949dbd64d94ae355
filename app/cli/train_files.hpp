#pragma once
// The files a train run reads and writes, checked before it loads data or trains: every output
// can be written (its folder exists and takes a new file; it is not a directory, FIFO or device),
// and no output is an input or another output. Each problem is an input error (exit 2) found at
// once, not after hours of training nor by silently overwriting the config or the training data.
#include <string>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/files/input_file.hpp"

namespace distlab::cli {

/// An output of the run: the option that names it and its path (empty: not asked for).
struct OutputFile {
    std::string option;
    std::string path;
};

/// Checks `outputs` (checkOutputPath) and that none is the same file (sameFile) as another output
/// or as one of `inputs` (the path opened is `resolved` when set). The one pair allowed is
/// --checkpoint and --resume: resuming and checkpointing into the same file is the resume flow.
Status checkTrainFiles(const std::vector<InputName>& inputs, const std::vector<OutputFile>& outputs);

}  // namespace distlab::cli
