// SPDX-License-Identifier: AGPL-3.0-or-later
// A gtest main with a QApplication: the manager desk's charts (Qt Charts) draw through Graphics View.
#include <QApplication>
#include <QtQml/qqmlextensionplugin.h>
#include <gtest/gtest.h>

Q_IMPORT_QML_PLUGIN(Marquee_AppPlugin)
Q_IMPORT_QML_PLUGIN(Marquee_UiPlugin)

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("marquee-staff-tests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
