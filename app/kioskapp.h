// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

namespace marquee::app {

/** @brief The whole app: parse options, load Marquee.Ui/Main, run (or walk the flow with --headless). */
int runApp(int argc, char **argv);

} // namespace marquee::app
