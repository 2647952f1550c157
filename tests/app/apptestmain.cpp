// SPDX-License-Identifier: AGPL-3.0-or-later
// A gtest main with a QGuiApplication (the app tests paint, print PDFs and load QML offscreen).
#include <QGuiApplication>
#include <QtQml/qqmlextensionplugin.h>
#include <gtest/gtest.h>

Q_IMPORT_QML_PLUGIN(Marquee_AppPlugin)
Q_IMPORT_QML_PLUGIN(Marquee_UiPlugin)

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    QGuiApplication::setApplicationName(QStringLiteral("marquee-tests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
