# Sourced by the device scripts (bench/gpu/*.sh) from the repository root on the lent machine:
# the packed binaries (bench/gpu/pack.sh) in the folder named by the script's first argument
# (default .devrun), their libraries and the bunny, and the NVIDIA EGL vendor where the GL debs
# put it. Sets dir and bin.
dir=${1:-.devrun}
bin=$PWD/$dir/bin
export LD_LIBRARY_PATH=$PWD/$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ISC_BUNNY_OBJ=$PWD/$dir/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f $nv ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
