#pragma once
// The file names DistLab suggests for what it writes about a run (exports, saved runs, the app's
// save dialogs), made from the run's name. Pure.
#include <string>

namespace distlab {

/// The base of the file names suggested for the run `runName` ("spiral-mirrored-4"): the name with
/// every character outside [A-Za-z0-9._-] replaced by '_' (never empty; "run" for an empty name).
std::string exportFileStem(const std::string& runName);

}  // namespace distlab
