// `distlab-cli devices`: prints the device report as JSON. Exits 0 also when no GPU is usable
// (the report says why).
#include "commands.hpp"

#include "distlab/device/device_info.hpp"

#include <exception>
#include <iostream>

namespace distlab::cli {

void addDevicesCommand(CLI::App& app, int& exitCode) {
    CLI::App* command =
        app.add_subcommand("devices",
                           "Print, as JSON, the CPUs and GPUs, how logical devices are carved from them, and the CUDA, NCCL "
                           "and Eigen versions built in. Exits 0 also when no GPU is usable (the report says why).");
    command->callback([&exitCode] {
        try {
            std::cout << deviceReportToJson(queryDevices()) << '\n';
            exitCode = 0;
        } catch (const std::exception& e) {
            std::cerr << "error: devices: " << e.what() << '\n';
            exitCode = 1;
        }
    });
}

}  // namespace distlab::cli
