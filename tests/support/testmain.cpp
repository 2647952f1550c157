// SPDX-License-Identifier: AGPL-3.0-or-later
// gtest main with a QCoreApplication: Qt networking and SQL expect an application object.
#include <QCoreApplication>
#include <csignal>
#include <gtest/gtest.h>

int main(int argc, char **argv)
{
    ::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
