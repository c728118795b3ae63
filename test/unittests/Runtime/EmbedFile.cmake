# cmake -DINPUT=<file> -DOUTPUT=<file.inc> -P EmbedFile.cmake
# Writes the bytes of INPUT as a comma-separated list of hex literals (plus a
# terminating 0x00, so text can be used as a C string), for
#   const unsigned char data[] = {
#   #include "file.inc"
#   };
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)"
       "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "${bytes}0x00\n")
